import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/config', include: ['src/**/*.test.ts'] },
});
