import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPLETE_LOG, newTaskState, type Store } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEscalation } from './build-bundle.js';
import { resolveEscalation } from './resolve-escalation.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const BLOCKED_AT = '2026-12-01T00:01:00.000Z';

/** A workspace with a blocked task g/blocked (escalated) and an unstarted g/fresh; its store. */
async function workspace() {
  const ws = mkdtempSync(join(tmpdir(), 'sy-resolve-'));
  dirs.push(ws);
  for (const task of ['g/blocked', 'g/fresh']) {
    mkdirSync(join(ws, 'agent-task', task), { recursive: true });
    writeFileSync(join(ws, 'agent-task', task, 'PLAN.md'), '# plan\n');
  }
  const store = openFsStore({ workspace: ws });
  stores.push(store);
  const state = newTaskState('g/blocked');
  state.blocked = { reason: 'x', stage: 'gate', evidence: [], at: BLOCKED_AT };
  await store.tasks.put(state, { expected: 0 });
  const { bundle, interview } = buildEscalation({
    workspace: ws,
    task: {
      id: 'g/blocked',
      group: 'g',
      name: 'blocked',
      dir: join(ws, 'agent-task/g/blocked'),
      planFile: 'agent-task/g/blocked/PLAN.md',
    },
    state: { ...state, blocked: state.blocked! },
    downstream: [],
    bundlePath: store.escalations.locate('g/blocked').bundle,
    now: new Date(BLOCKED_AT),
  });
  await store.escalations.put(bundle, interview);
  return { ws, store };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as { code: string; message: string; hint?: string },
  );

describe('resolveEscalation: which task', () => {
  it('an unknown task is called unknown (with the near blocked one); a known one not blocked', async () => {
    const { ws, store } = await workspace();
    const unknown = await failure(
      resolveEscalation({ workspace: ws, store, task: 'g/blokced', action: 'retry' }),
    );
    expect(unknown).toMatchObject({
      code: 'SY_USAGE',
      message: 'Unknown task g/blokced: there is no agent-task/g/blokced/ and no state of it.',
    });
    expect(unknown.hint).toMatch(/^did you mean "g\/blocked"\? `switchyard status` lists/);
    const fresh = await failure(
      resolveEscalation({ workspace: ws, store, task: 'g/fresh', action: 'retry' }),
    );
    expect(fresh.message).toBe('Task g/fresh is not blocked; nothing to resolve.');
    const outcome = await resolveEscalation({
      workspace: ws,
      store,
      task: 'g/blocked',
      action: 'retry',
    });
    expect(outcome).toMatchObject({ task: 'g/blocked', action: 'retry' });
  });
});

describe('resolveEscalation: through the store', () => {
  it('retry: the answer and its note in the escalation, the lifted block a new version of the state', async () => {
    const { ws, store } = await workspace();
    const now = new Date('2026-12-01T00:05:00.000Z');
    await resolveEscalation({
      workspace: ws,
      store,
      task: 'g/blocked',
      action: 'retry',
      now,
      by: 'ann',
      note: 'the key is back',
    });
    const resolution = {
      action: 'retry',
      at: now.toISOString(),
      by: 'ann',
      note: 'the key is back',
    };
    const escalation = await store.escalations.get('g/blocked');
    expect(escalation?.bundle.resolution).toEqual(resolution);
    expect(escalation?.interview?.resolution).toEqual(resolution);
    const stored = await store.tasks.get('g/blocked');
    expect(stored?.version).toBe(2);
    expect(stored?.value.blocked).toBeUndefined();
  });

  it('skip: only the escalation closes; a second skip finds none open', async () => {
    const { ws, store } = await workspace();
    await resolveEscalation({ workspace: ws, store, task: 'g/blocked', action: 'skip', by: 'bo' });
    expect((await store.escalations.get('g/blocked'))?.bundle.resolution?.action).toBe('skip');
    expect((await store.tasks.get('g/blocked'))?.version).toBe(1);
    const again = await failure(
      resolveEscalation({ workspace: ws, store, task: 'g/blocked', action: 'skip' }),
    );
    expect(again.message).toBe('Task g/blocked has no open escalation to skip.');
  });

  it('done: an archived task recorded done by hand, its claim released, its escalation closed', async () => {
    const { ws, store } = await workspace();
    expect((await store.claims.tryClaim('g/blocked', ['src/a.ts'])).ok).toBe(true);
    // The folder is still active: refused.
    const active = await failure(
      resolveEscalation({ workspace: ws, store, task: 'g/blocked', action: 'done' }),
    );
    expect(active.message).toBe('Task g/blocked is still active; --done is for archived tasks.');
    const archived = join(ws, 'agent-task/archive/g/blocked');
    mkdirSync(join(ws, 'agent-task/archive/g'), { recursive: true });
    rmSync(join(ws, 'agent-task/g/blocked'), { recursive: true });
    mkdirSync(archived);
    writeFileSync(join(archived, COMPLETE_LOG), 'done\n');
    const outcome = await resolveEscalation({
      workspace: ws,
      store,
      task: 'g/blocked',
      action: 'done',
    });
    expect(outcome.blocked?.at).toBe(BLOCKED_AT);
    const stored = await store.tasks.get('g/blocked');
    expect(stored?.value).toMatchObject({ phase: 'done', doneBy: 'hand' });
    expect(stored?.value.blocked).toBeUndefined();
    expect(await store.claims.list()).toEqual([]);
    expect((await store.escalations.get('g/blocked'))?.bundle.resolution?.action).toBe('done');
  });
});
