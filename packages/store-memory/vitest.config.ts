import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/store-memory',
    include: ['src/**/*.test.ts'],
  },
});
