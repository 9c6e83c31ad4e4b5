import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/runner-text', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
