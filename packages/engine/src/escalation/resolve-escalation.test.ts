import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState, stateDir } from '@switchyard/core';
import { openStateStore } from '@switchyard/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEscalation } from './resolve-escalation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace with a blocked task g/blocked and an unstarted g/fresh. */
async function workspace() {
  const ws = mkdtempSync(join(tmpdir(), 'sy-resolve-'));
  dirs.push(ws);
  for (const task of ['g/blocked', 'g/fresh']) {
    mkdirSync(join(ws, 'agent-task', task), { recursive: true });
    writeFileSync(join(ws, 'agent-task', task, 'PLAN.md'), '# plan\n');
  }
  const state = newTaskState('g/blocked');
  state.blocked = { reason: 'x', stage: 'gate', evidence: [], at: new Date().toISOString() };
  await openStateStore(stateDir(ws)).write(state);
  return ws;
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
    const ws = await workspace();
    const unknown = await failure(
      resolveEscalation({ workspace: ws, task: 'g/blokced', action: 'retry' }),
    );
    expect(unknown).toMatchObject({
      code: 'SY_USAGE',
      message: 'Unknown task g/blokced: there is no agent-task/g/blokced/ and no state of it.',
    });
    expect(unknown.hint).toMatch(/^did you mean "g\/blocked"\? `switchyard status` lists/);
    const fresh = await failure(
      resolveEscalation({ workspace: ws, task: 'g/fresh', action: 'retry' }),
    );
    expect(fresh.message).toBe('Task g/fresh is not blocked; nothing to resolve.');
    const outcome = await resolveEscalation({ workspace: ws, task: 'g/blocked', action: 'retry' });
    expect(outcome).toMatchObject({ task: 'g/blocked', action: 'retry' });
  });
});
