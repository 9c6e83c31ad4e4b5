import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/runner-kit',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
