import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeStoreConformance } from '@switchyard/testkit/store-conformance';
import { beforeAll, describe, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { freshScope, testDatabase } from './database.js';

// The crash case's child opens the built package (run `pnpm build` first; the test script does).
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let url = '';
beforeAll(async () => {
  url = await testDatabase();
});

// Every case gets a scope of its own in this file's database: an empty location.
describeStoreConformance(
  { describe, it },
  {
    name: 'postgres',
    durable: true,
    // Rows with a sequence, only ever inserted: nothing replaces the log under a reader.
    eventLogReset: 'never',
    async create() {
      const scope = freshScope();
      const captureRoot = mkdtempSync(join(tmpdir(), 'sy-pg-captures-'));
      return {
        captureRoot,
        open: ({ now }) => openPostgresStore({ url, scope, now }),
        child: { module: built, exportName: 'openPostgresStoreAt', arg: { url, scope } },
        dispose: async () => rmSync(captureRoot, { recursive: true, force: true }),
      };
    },
  },
);
