import type { TaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { admissionTaskOf } from '../admission/task-view.js';
import { admissionViewOf, liveAdmissionState } from './live-admission.js';
import type { DispatchContext, TaskRuntime } from './types.js';

const task = (writeSet: string[], deps: string[] = []) => ({
  id: 'g/t',
  writeSet: writeSet.map((path) => ({ path, raw: path, line: 1 })),
  dependsOn: deps.map((id) => ({ id, raw: id, line: 1 })),
});

describe('the admission view of a task in a live run', () => {
  it('is built once per task object and flags, and again when the plans are read again', () => {
    const first = task(['src/a.ts', 'src/b.ts'], ['g/dep']);
    const view = admissionViewOf(first, false, true);
    expect(view).toEqual(admissionTaskOf(first, false, true));
    // The next scheduling pass: the same view, not a new one.
    expect(admissionViewOf(first, false, true)).toBe(view);
    // Other flags (its next stage takes no slot, it has started): their own view.
    expect(admissionViewOf(first, true, false)).toEqual(admissionTaskOf(first, true, false));
    expect(admissionViewOf(first, false, false).fresh).toBeUndefined();
    // A plan read again is a new task object: its new write set is what admission sees.
    const reread = task(['src/c.ts']);
    expect(admissionViewOf(reread, false, true).writeSet).toEqual(['src/c.ts']);
    // A task object given new lists in place is not judged on the old ones either.
    first.writeSet = [{ path: 'src/d.ts', raw: 'src/d.ts', line: 1 }];
    expect(admissionViewOf(first, false, true).writeSet).toEqual(['src/d.ts']);
  });
});

describe('the admission input of a live run', () => {
  // Runtimes as the scheduler holds them; only what admission reads is filled in.
  const runtime = (
    id: string,
    group: string,
    state: Partial<TaskState>,
    more: Partial<Pick<TaskRuntime, 'halted'>> & { valid?: boolean } = {},
  ) =>
    ({
      id,
      group,
      task: { ...task([`${id}.ts`]), id, valid: more.valid ?? true, runner: 'text' },
      state: { phase: 'worker', attempts: [], ...state },
      ...(more.halted ? { halted: more.halted } : {}),
    }) as unknown as TaskRuntime;
  const disk = (bytes: number) => ({ disk: { bytes, sharedBytes: 0, at: '' } });
  const runtimes = [
    runtime('g/done', 'g', { phase: 'done', isolation: disk(500) as never }),
    runtime('g/fresh', 'g', {}),
    runtime('g/started', 'g', { attempts: [{}] as never, isolation: disk(10) as never }),
    runtime('g/gate', 'g', { phase: 'writeset' }),
    runtime('g/apply', 'g', { phase: 'apply', isolation: disk(20) as never }),
    runtime('g/promise', 'g', { phase: 'promise', isolation: disk(5) as never }),
    runtime('g/promise-shared', 'g', { phase: 'promise' }),
    runtime('g/blocked', 'g', { phase: 'apply', blocked: { reason: 'x' } as never }),
    runtime('h/halted', 'h', { phase: 'apply', isolation: disk(1) as never }, { halted: 'log' }),
    runtime('h/invalid', 'h', {}, { valid: false }),
  ];
  const ctxOf = (options: Partial<DispatchContext['options']>, owned?: string[]) =>
    ({
      tasks: new Map(runtimes.map((rt) => [rt.id, rt])),
      archived: new Set(['g/old']),
      claimIndex: new Map([['g/started.ts', 'g/started']]),
      options: { maxParallel: 2, ...options },
      ...(owned ? { shared: { owned: new Set(owned) } } : {}),
    }) as unknown as DispatchContext;

  it('lists the unfinished tasks, the blocked, halted and invalid ones, and the slots', () => {
    const ctx = ctxOf({});
    const state = liveAdmissionState(ctx, new Set(['g/started']), 1);
    expect(state.tasks.map((t) => [t.id, !!t.slotFree, !!t.fresh])).toEqual([
      ['g/fresh', false, true],
      ['g/started', false, false],
      ['g/gate', true, false],
      ['g/apply', true, false],
      ['g/promise', true, false],
      ['g/promise-shared', true, false],
      ['g/blocked', true, false],
      ['h/halted', true, false],
      ['h/invalid', false, true],
    ]);
    expect(state).toMatchObject({
      archivedComplete: ctx.archived,
      claims: ctx.claimIndex,
      activeStages: 1,
      maxParallel: 2,
    });
    expect([...(state.blocked ?? [])]).toEqual(['g/blocked', 'h/halted']);
    expect([...(state.invalid ?? [])]).toEqual(['h/invalid']);
    expect(state.scope).toBeUndefined();
    expect(state.applyQueue).toBeUndefined();
    expect(state.worktreeDisk).toBeUndefined();
  });

  it('under isolation counts the approved tasks waiting for the apply and the worktrees’ disk', () => {
    const state = liveAdmissionState(
      ctxOf({ isolation: 'worktree' as never, maxApplyQueue: 3, worktreeDiskCap: 100 }),
      new Set(),
      0,
    );
    // Not the blocked or halted ones, nor a promise in the shared workspace.
    expect(state.applyQueue).toEqual({ waiting: 2, limit: 3 });
    // Every task not archived yet, blocked and halted ones included.
    expect(state.worktreeDisk).toEqual({ bytes: 36, cap: 100 });
    expect(
      liveAdmissionState(ctxOf({ isolation: 'worktree' as never }), new Set(), 0),
    ).toMatchObject({ applyQueue: { waiting: 2, limit: 2 } });
  });

  it('scopes a task group, and on a shared backlog sees only the tasks this run took', () => {
    const scoped = liveAdmissionState(ctxOf({ taskGroup: 'h' }), new Set(), 0);
    expect([...(scoped.scope ?? [])]).toEqual(['h/halted', 'h/invalid']);
    const shared = liveAdmissionState(ctxOf({}, ['g/fresh', 'h/invalid']), new Set(), 0);
    expect(shared.tasks.map((t) => t.id)).toEqual(['g/fresh', 'h/invalid']);
    expect([...(shared.invalid ?? [])]).toEqual(['h/invalid']);
    expect(shared.blocked?.size).toBe(0);
  });
});
