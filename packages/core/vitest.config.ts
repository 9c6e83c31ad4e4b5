import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/core', include: ['src/**/*.test.ts', '__tests__/**/*.test.ts'] },
});
