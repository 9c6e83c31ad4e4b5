import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/monitor', include: ['src/**/*.test.ts'] },
});
