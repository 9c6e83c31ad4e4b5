import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/runner-native-session',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
