import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BacklogView,
  type Lease,
  newTaskState,
  type SharedBacklogPort,
  SwitchyardError,
} from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { openSharedRun, sharedWorkLeft, syncSharedBacklog } from './shared-backlog.js';
import { TaskLeases } from './task-leases.js';

type Operation = 'take' | 'finish' | 'requeue' | 'list';

/**
 * A backlog of other machines, kept in memory on the memory store's leases: `fail` makes the
 * next call of an operation throw the given error once (what the database store throws).
 */
function backlog(store: ReturnType<typeof createMemoryStore>, views: BacklogView[]) {
  const tasks = new Map(views.map((view) => [view.task, { ...view }]));
  const failing = new Map<Operation, unknown>();
  const calls: Operation[] = [];
  const hit = (operation: Operation) => {
    calls.push(operation);
    const error = failing.get(operation);
    failing.delete(operation);
    if (error) throw error;
  };
  const port: SharedBacklogPort = {
    async take(holder, ttlMs) {
      hit('take');
      const ready = [...tasks.values()].find((view) => view.status === 'ready');
      if (!ready) return undefined;
      const taken = await store.leases.acquire(ready.task, holder, ttlMs);
      if (!taken.ok) return undefined;
      ready.status = 'taken';
      return { task: ready.task, lease: taken.lease };
    },
    async finish(task, status) {
      hit('finish');
      (tasks.get(task) as BacklogView).status = status;
    },
    async requeue(task) {
      hit('requeue');
      // Delivered again later (after `afterSeconds`): nothing this pass takes again.
      (tasks.get(task) as BacklogView).status = 'waiting';
    },
    async list() {
      hit('list');
      return [...tasks.values()].map((view) => ({ ...view }));
    },
    watch: async () => ({ stop: async () => undefined }),
  };
  return {
    port,
    tasks,
    calls,
    fail: (operation: Operation, error: unknown) => failing.set(operation, error),
  };
}

const transient = () =>
  new SwitchyardError('SY_STORE_TRANSIENT', 'The store failed: deadlock detected.');

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A run on the backlog that took `g/done` and finished its work on it (not recorded yet). */
async function runWithFinishedTask() {
  const store = createMemoryStore();
  const shared = backlog(store, [
    { task: 'g/done', status: 'taken' },
    { task: 'other/x', status: 'ready' },
  ]);
  const workspace = mkdtempSync(join(tmpdir(), 'sy-trouble-'));
  folders.push(workspace);
  const events: Array<{ type: string; code?: string; message?: string }> = [];
  const leases = new TaskLeases(store.leases, 'run-1', 60_000);
  const state = { ...newTaskState('g/done'), phase: 'done' as const };
  const rt = { id: 'g/done', group: 'g', state, version: 0, task: { valid: true } };
  const ctx = {
    workspace,
    store,
    shared: openSharedRun(shared.port, 60_000),
    leases,
    tasks: new Map([[rt.id, rt as unknown as TaskRuntime]]),
    archived: new Set<string>(),
    claimIndex: new Map<string, string>(),
    controlFailures: [] as string[],
    bus: { emit: (event: { type: string }) => events.push(event) },
    options: {},
    signal: new AbortController().signal,
  } as unknown as DispatchContext;
  const taken = await store.leases.acquire('g/done', leases.holder, 60_000);
  leases.adopt((taken as { lease: Lease }).lease);
  ctx.shared?.owned.add('g/done');
  return { ctx, store, shared, events };
}

describe('a shared backlog operation that fails for a passing reason', () => {
  it("recording a task's end: the pass goes on without it, the task stays the run's, and the next pass records it", async () => {
    const { ctx, store, shared, events } = await runWithFinishedTask();
    shared.fail('finish', transient());
    await syncSharedBacklog(ctx, new Set(), 0);
    expect(ctx.shared?.owned.has('g/done')).toBe(true);
    expect(shared.tasks.get('g/done')?.status).toBe('taken');
    expect(await store.leases.get('g/done')).toBeDefined();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'control.failure', code: 'SY_STORE_TRANSIENT' }),
    );
    expect(ctx.controlFailures).toEqual([]);
    // The run does not end on it: it looks at the backlog again.
    expect(sharedWorkLeft(ctx)).toBe(true);
    await syncSharedBacklog(ctx, new Set(), 0);
    expect(shared.tasks.get('g/done')?.status).toBe('archived');
    expect(ctx.shared?.owned.size).toBe(0);
    expect(await store.leases.get('g/done')).toBeUndefined();
    expect(shared.calls.filter((c) => c === 'finish')).toHaveLength(2);
  });

  for (const operation of ['list', 'take', 'requeue'] as const)
    it(`${operation}: the pass ends there, reported, and the next pass does it`, async () => {
      const { ctx, shared, events } = await runWithFinishedTask();
      shared.fail(operation, transient());
      const live = await syncSharedBacklog(ctx, new Set(), 1);
      expect(live.size).toBe(0);
      expect(events.filter((e) => e.code === 'SY_STORE_TRANSIENT')).toHaveLength(1);
      expect(ctx.controlFailures).toEqual([]);
      expect(sharedWorkLeft(ctx)).toBe(true);
      await syncSharedBacklog(ctx, new Set(), 1);
      // other/x is not a task of this workspace: taken, then given back (not given back, its
      // lease expires and another machine takes it over).
      expect(shared.tasks.get('other/x')?.status).toBe(
        operation === 'requeue' ? 'taken' : 'waiting',
      );
      expect(shared.tasks.get('g/done')?.status).toBe('archived');
      expect(events.filter((e) => e.code === 'SY_STORE_TRANSIENT')).toHaveLength(1);
    });

  it('any other error still ends the pass with it (a permanent one ends the run)', async () => {
    const { ctx, shared } = await runWithFinishedTask();
    shared.fail('finish', new SwitchyardError('SY_STORE_SCHEMA', 'The store has no schema.'));
    await expect(syncSharedBacklog(ctx, new Set(), 0)).rejects.toMatchObject({
      code: 'SY_STORE_SCHEMA',
    });
    shared.fail('take', new TypeError('a bug'));
    await expect(syncSharedBacklog(ctx, new Set(), 1)).rejects.toThrow('a bug');
  });
});
