import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/git-isolation',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
