import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/store-postgres',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One throwaway PostgreSQL cluster for the run; every test file makes its own database.
    globalSetup: ['test/postgres-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
