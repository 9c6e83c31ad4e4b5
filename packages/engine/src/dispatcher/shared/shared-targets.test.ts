import {
  type AttemptRecord,
  type Classification,
  type Decision,
  newTaskState,
} from '@switchyard/core';
import { createMemoryStore, type MemoryStoreData } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { persist } from '../context.js';
import { applyFailure } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { holdForSharedTarget } from './shared-targets.js';
import { TaskLeases } from './task-leases.js';

const T0 = Date.parse('2026-12-01T10:00:00Z');

/** One machine: its own dispatch context on a store handle sharing `data` with the others. */
function machine(data: MemoryStoreData, clock: { now: number }, shared = true) {
  const store = createMemoryStore({ data, now: () => clock.now });
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const ctx = {
    now: () => new Date(clock.now),
    monotonicMs: () => clock.now,
    workspace: '/ws',
    store,
    // On a shared backlog (the hold applies there only).
    shared: shared ? {} : undefined,
    secrets: [],
    leases: new TaskLeases(store.leases, `run-${events.length}`),
    bus: { emit: (e: { type: string }) => events.push(e) },
    catalog: { targets: { a: { agent: 'x' }, b: { agent: 'y' }, c: { agent: 'z' } } },
    options: { retry: { baseDelayMs: 1000, maxDelayMs: 1000 } },
  } as unknown as DispatchContext;
  const task = (id: string, candidates: string[], target = candidates[0]!): TaskRuntime => {
    const state = newTaskState(id);
    const decision: Decision = {
      stage: 'worker',
      target,
      source: 'route',
      routeId: 'cloud-G01',
      catalogSource: 'flag',
      catalogRevision: 'r',
      targetSnapshot: {},
      candidates,
      used: [target],
      decidedAt: new Date(clock.now).toISOString(),
    };
    state.decisions.worker = decision;
    return { id, group: 'g', task: { writeSet: [] }, state, version: 0 } as unknown as TaskRuntime;
  };
  return { ctx, events, task };
}

/** The task's current worker target answers 429 "try again in `seconds`". */
function quota(ctx: DispatchContext, rt: TaskRuntime, seconds: number): void {
  const target = rt.state.decisions.worker!.target;
  const record: AttemptRecord = {
    id: `${rt.id}-w${rt.state.attempts.length + 1}`,
    role: 'worker',
    planLoop: 1,
    target,
    attemptDir: '/ws/attempt',
    status: 'finished',
    startedAt: ctx.now().toISOString(),
    result: 'provider-quota',
    evidence: [`API Error: 429 on ${target}`],
  };
  rt.state.attempts.push(record);
  const verdict: Classification = {
    class: 'provider-quota',
    confidence: 'certain',
    evidence: [...record.evidence!],
    retryAfter: new Date(ctx.now().getTime() + seconds * 1000).toISOString(),
  };
  applyFailure(ctx, rt, 'worker', 'worker', record, verdict);
}

describe('target cool-downs shared through the store', () => {
  it("on a shared backlog, one machine's quota error keeps another machine's tasks off the target until it lifts", async () => {
    const data = createMemoryStore().data;
    const clock = { now: T0 };
    const one = machine(data, clock);
    const two = machine(data, clock);
    // Machine one: a's 429 (reset in 1 h) moves its task to b; persisting writes a's cool-down.
    const first = one.task('g/one', ['a', 'b']);
    quota(one.ctx, first, 3600);
    expect(first.state.decisions.worker?.target).toBe('b');
    expect(await two.ctx.store.targets.get('a')).toBeUndefined(); // not before the persist
    await persist(one.ctx, first);
    expect(await two.ctx.store.targets.get('a')).toMatchObject({
      coolDownUntil: '2026-12-01T11:00:00.000Z',
      reason: 'provider-quota',
    });

    // The task that saw the reset weighs it in its own stage's rules only: its review on a is
    // not held by it (as on one machine before the cool-downs were shared).
    first.state.decisions.review = {
      ...first.state.decisions.worker!,
      stage: 'review',
      target: 'a',
    };
    const review = { decisionKey: 'review', budget: 'review', failover: true } as const;
    expect(await holdForSharedTarget(one.ctx, first, review)).toBe(false);

    // Machine two: a task decided on a fails over to the free candidate, charged nothing.
    const moved = two.task('g/two', ['a', 'c']);
    expect(await holdForSharedTarget(two.ctx, moved, WORKER)).toBe(true);
    expect(moved.state.decisions.worker).toMatchObject({ target: 'c', used: ['a', 'c'] });
    expect(moved.state.failures.worker).toBe(0);
    expect(moved.state.notBefore).toBeUndefined();
    expect(two.events).toEqual([
      expect.objectContaining({ type: 'target.failover', from: 'a', to: 'c' }),
    ]);
    expect(String((two.events[0]?.evidence as string[] | undefined)?.[0])).toMatch(
      /a: cooling down until 2026-12-01T11:00:00.000Z for every machine of the store/,
    );
    // On its new target nothing holds it.
    expect(await holdForSharedTarget(two.ctx, moved, WORKER)).toBe(false);

    // A task whose only candidate is a parks until a's reset; a self-check on a waits.
    const only = two.task('g/only', ['a']);
    expect(await holdForSharedTarget(two.ctx, only, WORKER)).toBe(true);
    expect(only.state.parked).toMatchObject({ until: '2026-12-01T11:00:00.000Z' });
    expect(only.state.notBefore).toBe('2026-12-01T11:00:00.000Z');
    expect(two.events.at(-1)).toMatchObject({ type: 'task.parked', targets: ['a'] });
    const check = two.task('g/check', ['a', 'b']);
    const selfcheck = { decisionKey: 'worker', budget: 'selfcheck', failover: false } as const;
    expect(await holdForSharedTarget(two.ctx, check, selfcheck)).toBe(true);
    expect(check.state.decisions.worker?.target).toBe('a');
    expect(check.state.notBefore).toBe('2026-12-01T11:00:00.000Z');

    // One machine without a shared backlog keeps today's rules: the task starts on a.
    const alone = machine(data, clock, false);
    expect(await holdForSharedTarget(alone.ctx, alone.task('g/alone', ['a', 'b']), WORKER)).toBe(
      false,
    );

    // Once the reset passed, a is free for everyone again.
    clock.now = T0 + 3600_000;
    expect(await holdForSharedTarget(two.ctx, two.task('g/later', ['a', 'b']), WORKER)).toBe(false);
  });

  it('parks a stage on the earliest reset when every candidate is held, and a stale fence writes nothing', async () => {
    const data = createMemoryStore().data;
    const clock = { now: T0 };
    const one = machine(data, clock);
    await one.ctx.store.targets.coolDown('a', '2026-12-01T12:00:00.000Z', 'provider-quota');
    await one.ctx.store.targets.park('b', '2026-12-01T10:30:00.000Z');
    const rt = one.task('g/p', ['a', 'b']);
    expect(await holdForSharedTarget(one.ctx, rt, WORKER)).toBe(true);
    expect(rt.state.decisions.worker?.target).toBe('b');
    expect(rt.state.parked).toMatchObject({
      until: '2026-12-01T10:30:00.000Z',
      resets: { a: '2026-12-01T12:00:00.000Z', b: '2026-12-01T10:30:00.000Z' },
    });
    expect(rt.state.failures.worker).toBe(0);

    // A machine that lost the task's lease writes neither the task nor the target's cool-down.
    const stale = one.task('g/stale', ['c']);
    await persist(one.ctx, stale);
    clock.now += 60_000; // past the lease (never renewed here): another holder steals it
    const stolen = await one.ctx.store.leases.acquire('g/stale', 'thief', 30_000);
    expect(stolen).toMatchObject({ ok: true });
    quota(one.ctx, stale, 600);
    await expect(persist(one.ctx, stale)).rejects.toMatchObject({ code: 'SY_LEASE_LOST' });
    expect(await one.ctx.store.targets.get('c')).toBeUndefined();
  });
});

const WORKER = { decisionKey: 'worker', budget: 'worker', failover: true } as const;
