import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeStoreConformance } from '@switchyard/testkit/store-conformance';
import { describe, it } from 'vitest';
import { type FsStore, openFsStore } from './fs-store.js';

// The crash case's child opens the built package (run `pnpm build` first; the test script does).
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));

for (const exclusive of [false, true]) {
  describeStoreConformance(
    { describe, it },
    {
      name: exclusive ? 'fs (exclusive: one process holds the workspace lock)' : 'fs',
      durable: true,
      // events.jsonl can be removed or rewritten by hand between runs, under a reader.
      eventLogReset: 'on-replace',
      async create() {
        const root = mkdtempSync(join(tmpdir(), 'sy-store-fs-'));
        const workspace = join(root, 'ws');
        // the task groups the cases write work logs for (a group's log lives in its folder)
        for (const group of ['g', 'h'])
          mkdirSync(join(workspace, 'agent-task', group), { recursive: true });
        const location = { workspace, scheduleHome: join(root, 'state-home') };
        // An exclusive store is the only handle on its folder: both holders of a case share it.
        let shared: FsStore | undefined;
        return {
          captureRoot: join(workspace, 'agent-task', '.switchyard', 'attempts'),
          open: async ({ now }) => {
            if (!exclusive) return openFsStore({ ...location, now });
            shared ??= openFsStore({ ...location, now, exclusive: true });
            return shared;
          },
          child: { module: built, exportName: 'openFsStoreAt', arg: location },
          // As a later run leaves it: the file removed, then appended to by a store of its own.
          replaceEventLog: async (events) => {
            const later = openFsStore(location);
            rmSync(later.layout.eventsFile, { force: true });
            for (const event of events) await later.events.append(event);
            await later.close();
          },
          dispose: async () => rmSync(root, { recursive: true, force: true }),
        };
      },
    },
  );
}
