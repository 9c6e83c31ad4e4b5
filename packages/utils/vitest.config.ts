import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/utils',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
