import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProject } from 'vitest/config';

const userCache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');

export default defineProject({
  test: {
    name: 'e2e',
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
