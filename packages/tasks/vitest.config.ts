import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/tasks', include: ['src/**/*.test.ts'] },
});
