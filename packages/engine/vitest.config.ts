import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/engine', include: ['src/**/*.test.ts'] },
});
