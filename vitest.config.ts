import { defineConfig } from 'vitest/config';

// One vitest run covers every package, plugin and the cross-package tests in test/.
export default defineConfig({
  test: {
    projects: ['packages/*', 'plugins/*', 'test'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
