import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttemptRecord, newTaskState } from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { advance } from '../advance.js';
import { persist } from '../context.js';
import { TaskLeases } from '../shared/task-leases.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { brokenPromises, openChecklistNotes } from './completion-promise.js';
import { runPromiseStage } from './stage-promise.js';

const PLAN = [
  '---',
  'route: cloud-G01',
  '---',
  '# t',
  '',
  '## Modified Files Summary',
  '',
  '- src/a.ts',
  '',
  '## Implementation Checklist',
  '',
  '- [x] write a',
  '- [ ] tidy up',
  '',
].join('\n');

/** A task whose worker (on `target`) finished, in a folder with its PLAN.md and review. */
function task(opts: { selfcheck?: boolean; verdict?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sy-promise-'));
  writeFileSync(join(dir, 'PLAN.md'), PLAN);
  writeFileSync(join(dir, 'CODE_REVIEW-1.md'), `Verdict: ${opts.verdict ?? 'APPROVED'}\n`);
  const events: Array<{ type: string }> = [];
  const store = createMemoryStore();
  const ctx = {
    now: () => new Date('2026-12-01T12:00:00Z'),
    bus: { emit: (e: { type: string }) => events.push(e) },
    catalog: { targets: { a: { selfcheck_required: opts.selfcheck === true } } },
    store,
    leases: new TaskLeases(store.leases, 'run-1'),
    options: {},
    controlFailures: [],
    secrets: [],
  } as unknown as DispatchContext;
  const state = newTaskState('g/t');
  const worker: AttemptRecord = {
    id: 'w1',
    role: 'worker',
    planLoop: 1,
    target: 'a',
    attemptDir: '/x',
    status: 'finished',
    startedAt: '2026-12-01T11:00:00Z',
    result: 'success',
  };
  state.attempts.push(worker);
  const rt = {
    id: 'g/t',
    group: 'g',
    task: { dir, writeSet: [{ path: 'src/a.ts' }], checklist: [] },
    version: 0,
    state,
    hasProjectGates: false,
  } as unknown as TaskRuntime;
  /** Moves the task through its stages as the dispatcher would, every one passing. */
  const pass = (...phases: Array<[TaskRuntime['state']['phase'], 'passed' | 'approved']>) => {
    for (const [phase, outcome] of phases) {
      state.phase = phase;
      advance(rt, outcome);
    }
  };
  return { ctx, rt, state, events, pass };
}

describe('the completion promise', () => {
  it('holds when every check passed on the work as it is now; an unticked box without a required self-check is a note', () => {
    const { ctx, rt, pass } = task();
    pass(['worker', 'passed'], ['writeset', 'passed'], ['gate', 'passed'], ['review', 'approved']);
    expect(rt.state.phase).toBe('promise');
    expect(brokenPromises(ctx, rt)).toEqual([]);
    expect(openChecklistNotes(ctx, rt)).toEqual(['PLAN.md:13: tidy up']);
  });

  it('is unmet when the files changed after a check, or a review did not approve', () => {
    const { ctx, rt, state, pass } = task({ verdict: 'CHANGES_REQUESTED\n\n- [CRITICAL] broken' });
    pass(['worker', 'passed'], ['writeset', 'passed'], ['gate', 'passed']);
    state.verified = { ...state.verified, review: state.work ?? 0 };
    pass(['worker', 'passed']); // a worker round after the checks
    expect(brokenPromises(ctx, rt)).toEqual([
      'the write-set check passed on earlier work (#1); the files changed since (now #2)',
      'the change verification (stubs, tests) passed on earlier work (#1); the files changed since (now #2)',
      'the review (CODE_REVIEW-1.md) passed on earlier work (#1); the files changed since (now #2)',
      'CODE_REVIEW-1.md: the review of plan loop 1 did not approve',
    ]);
  });

  it('needs a required self-check accepted, and its checklist complete', () => {
    const { ctx, rt, pass } = task({ selfcheck: true });
    pass(['worker', 'passed'], ['writeset', 'passed'], ['gate', 'passed'], ['review', 'approved']);
    expect(brokenPromises(ctx, rt)).toEqual([
      "the required self-check never passed in this task's records",
      "PLAN.md: the required self-check's checklist is not complete (1 unchecked of 2 checklist item(s))",
    ]);
    expect(openChecklistNotes(ctx, rt)).toEqual([]);
  });

  it('keeps the reviews of work a fixup changed after them, and wants the gates on the fixup', () => {
    const { ctx, rt, state, pass } = task();
    pass(['worker', 'passed'], ['writeset', 'passed'], ['gate', 'passed'], ['review', 'approved']);
    state.phase = 'fixup';
    advance(rt, 'passed');
    expect(state.phase).toBe('writeset');
    pass(['writeset', 'passed']);
    expect(state.phase).toBe('gate');
    // The gate has not run on the fixup's change yet.
    expect(brokenPromises(ctx, rt)).toEqual([
      'the change verification (stubs, tests) passed on earlier work (#1); the files changed since (now #2)',
    ]);
    pass(['gate', 'passed']);
    expect(state.phase).toBe('promise');
    expect(brokenPromises(ctx, rt)).toEqual([]);
  });

  it('an unmet promise goes back to the worker as a correction naming it, before anything lands', async () => {
    const { ctx, rt, state, pass } = task();
    pass(['worker', 'passed'], ['gate', 'passed'], ['review', 'approved']);
    expect(state.phase).toBe('promise');
    await runPromiseStage(ctx, rt);
    expect(state.phase).toBe('worker');
    expect(state.failures.promise).toBe(1);
    // A correction is written at once.
    expect((await ctx.store.tasks.get('g/t'))?.value.correction?.source).toBe('promise');
    expect(state.correction).toMatchObject({
      source: 'promise',
      evidence: ["the write-set check never passed in this task's records"],
    });
    expect(state.correction?.summary).toMatch(
      /^the completion promise is not met, so nothing was applied: /,
    );
  });

  it("a kept promise before the archive is written by the archive's first write", async () => {
    const { ctx, rt, state, pass } = task();
    pass(['worker', 'passed'], ['writeset', 'passed'], ['gate', 'passed'], ['review', 'approved']);
    await runPromiseStage(ctx, rt);
    expect(state.phase).toBe('archive');
    // A crash now runs the promise again, with the same result (see persistLater).
    expect(await ctx.store.tasks.get('g/t')).toBeUndefined();
    expect(rt.unsaved).toBe(true);
    await persist(ctx, rt);
    expect((await ctx.store.tasks.get('g/t'))?.value.phase).toBe('archive');
    expect(rt.unsaved).toBe(false);
  });

  it('judges a state from before these records on its files only', () => {
    const { ctx, rt, state } = task();
    delete state.work;
    state.verified = {};
    expect(brokenPromises(ctx, rt)).toEqual([]);
  });
});
