import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/testkit',
    include: ['src/**/*.test.ts', '__tests__/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
