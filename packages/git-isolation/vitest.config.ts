import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@switchyard/git-isolation',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    // Task worktrees go under $XDG_CACHE_HOME: the tests' own, never the user's cache.
    env: { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'sy-cache-')) },
  },
});
