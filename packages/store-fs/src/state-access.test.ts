import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageSourceFiles } from '../../../scripts/source-files.mjs';

/**
 * One owner of the state folder (`agent-task/.switchyard/`) and the work logs: the file store.
 * Every other module reaches a stored fact through the store ports. This scan fails on a
 * source file outside `packages/store-fs` that writes or reads those files by path: that
 * names a state file, joins a state record folder onto the state folder, or calls one of
 * core's by-path state functions. What is left is listed below with the reason it is left;
 * an entry that no longer matches fails too, so the list only shrinks.
 */

/** Core's functions that read or write state records by path (the file formats store-fs uses). */
const BY_PATH = [
  'openStateStore',
  'openClaimStore',
  'readClaims',
  'readEvents',
  'writeEscalation',
  'readBundle',
  'recordResolution',
  'listOpenEscalations',
  'escalationPaths',
  'SessionStore',
  'workLogPath',
];
const CALL = new RegExp(`\\b(?:new\\s+)?(${BY_PATH.join('|')})\\s*\\(`);
/** State file names, as a literal. */
const FILE_NAME = /'(events\.jsonl|claims\.json|leases\.json|targets\.json|store\.lock)'/;
/** A path built under the state folder (`join(stateDir, 'tasks', …)`, `join(ctx.stateDir, 'gates')`). */
const UNDER_STATE = /\(\s*(?:\w+\.)*(?:stateDir|state)(?:Of)?(?:\([\w.]*\))?\s*,\s*['`]/i;

const CAPTURE =
  'writes capture or gate/stage output folders under the state folder: local evidence';

/** What still touches state by path outside store-fs, and why. */
const LEFT: Record<string, string> = {
  'packages/core/src/store/session-port.ts': 'names the port method readEvents (no I/O)',
  'packages/testkit/src/store-conformance/record-cases.ts':
    'the conformance suite calls the port method readEvents',
  // Local evidence, outside the store by design (as attempt captures; the store keeps locators).
  'packages/engine/src/dispatcher/agent/attempt-spec.ts': CAPTURE,
  'packages/engine/src/dispatcher/landing/git-stage-rows.ts': CAPTURE,
  'packages/engine/src/dispatcher/agent/review-packet.ts': CAPTURE,
  'packages/engine/src/dispatcher/checks/source-gates.ts': CAPTURE,
  'packages/engine/src/dispatcher/landing/stage-apply.ts': CAPTURE,
  'packages/engine/src/dispatcher/checks/stage-gate.ts': CAPTURE,
  'packages/engine/src/dispatcher/checks/stage-local.ts': CAPTURE,
  'packages/engine/src/dispatcher/checks/stage-project-gates.ts': CAPTURE,
  'packages/engine/src/dispatcher/worktree/worktree-setup.ts': CAPTURE,
  'packages/cli/src/commands/plan-review-run.ts': CAPTURE,
  'packages/runner-kit/src/evidence/evidence-prune.ts':
    'prunes capture folders (local evidence); the task states come from the store',
  'packages/tasks/src/workspace/plan-cache.ts':
    'a cache of parsed plans, rebuilt when missing: no stored fact',
  'packages/cli/src/commands/demo.ts': "prints where the demo's event log is (no I/O)",
  'packages/git-isolation/src/layout.ts':
    "git metadata snapshots, an apply's scratch index and earlier versions' worktree folder under the state folder: local files of this machine's repository, as the worktrees are (records and journals go through store.isolation)",
};

/** The first line of `text` that touches state by path, or undefined. */
function stateAccess(text: string): string | undefined {
  return text
    .split('\n')
    .find(
      (line) =>
        !/^\s*(\*|\/\/)/.test(line) &&
        (CALL.test(line) || FILE_NAME.test(line) || UNDER_STATE.test(line)),
    );
}

describe('one owner of the state files', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
  // Store implementations (store-fs, store-postgres…) own their storage.
  const files = packageSourceFiles(root).filter((file) => !file.includes('/packages/store-'));

  it('no module outside store-fs reads or writes state by path but those left with a reason', () => {
    expect(files.length).toBeGreaterThan(100);
    const found = new Map<string, string>();
    for (const file of files) {
      const line = stateAccess(readFileSync(file, 'utf8'));
      if (line) found.set(relative(root, file), line.trim());
    }
    const unexplained = [...found].filter(([file]) => !(file in LEFT));
    expect(unexplained, 'read the state through the store ports (Store) instead').toEqual([]);
    const stale = Object.keys(LEFT).filter((file) => !found.has(file));
    expect(stale, 'no longer touches state by path: take it off the list').toEqual([]);
  });

  it('catches a by-path call, a state file name and a path built under the state folder', () => {
    expect(stateAccess('const s = openStateStore(dir);')).toBeDefined();
    expect(stateAccess("readText(join(dir, 'events.jsonl'))")).toBeDefined();
    expect(stateAccess("join(stateDir(workspace), 'tasks', `${t}.json`)")).toBeDefined();
    expect(stateAccess("const x = join(ctx.stateDir, 'gates', id);")).toBeDefined();
    expect(stateAccess('const x = join(ctx.workspace, PLAN_FILE);')).toBeUndefined();
    expect(stateAccess(' * writes events.jsonl')).toBeUndefined();
  });
});
