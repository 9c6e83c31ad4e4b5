// The shared store's connection string names a database every machine's backlog, leases and
// fencing tokens live in, often with its password. An agent has no use for it: with it, an
// agent could write the store directly, past every lease. The dispatcher's SWITCHYARD_STORE
// does not reach the agent's environment (sandboxed or not).
import { expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';

const STORE = 'postgres://sy:S3cretPw@127.0.0.1:1/switchyard';

it("an agent does not inherit the dispatcher's SWITCHYARD_STORE", {
  timeout: 120_000,
}, async () => {
  const ws = new Workspace();
  const leak = [{ write: { path: 'src/t.txt', content: 'store seen\n' } }, { fillChecklist: true }];
  ws.catalog({
    a: {
      scenario: {
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          { when: { env: { SWITCHYARD_STORE: STORE } }, steps: leak },
        ],
        steps: [{ write: { path: 'src/t.txt', content: 'ok\n' } }, { fillChecklist: true }],
      },
    },
  });
  ws.task('g/t', { files: ['src/t.txt'] });
  // the fake agent keeps its state beside its scenario, in the workspace
  ws.config({ sandbox: { mode: 'bwrap', writable: [ws.dir] } });
  // --store file: this run uses the file store; the variable is only in the environment.
  const run = await ws.run(['--store', 'file'], { env: { SWITCHYARD_STORE: STORE } });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(ws.events().find((e) => e.type === 'attempt.started')?.sandbox).toBe('bwrap');
  expect(ws.read('src/t.txt')).toBe('ok\n');
});
