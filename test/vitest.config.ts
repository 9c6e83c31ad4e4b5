import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProject } from 'vitest/config';

const userCache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');

export default defineProject({
  test: {
    name: 'e2e',
    // The root config's limits do not reach a project with its own config file: without these,
    // a spawning test with no limit of its own would get vitest's 5 s on a loaded machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'bench/**', '**/fixtures/**'],
    env: {
      // Task worktrees of the runs go under $XDG_CACHE_HOME: the tests' own, not the user's.
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'sy-cache-')),
      // The smoke run's agent CLIs stay where they were installed (see test/smoke/clis.mjs).
      SWITCHYARD_SMOKE_CACHE:
        process.env.SWITCHYARD_SMOKE_CACHE || join(userCache, 'switchyard-smoke'),
    },
  },
});
