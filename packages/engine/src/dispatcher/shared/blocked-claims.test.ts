import { newTaskState } from '@switchyard/core';
import { createMemoryStore, type MemoryStoreData } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { releaseBlockedClaim, releaseBlockedClaims } from './blocked-claims.js';
import { TaskLeases } from './task-leases.js';

/** Two blocked tasks holding claims: one in its worktree, one in the shared workspace. */
function run() {
  const held = new Map([
    ['src/index.ts', 'g/isolated'],
    ['src/shared.ts', 'g/shared'],
  ]);
  const released: string[] = [];
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const task = (id: string, mode: 'worktree' | 'none') => {
    const state = newTaskState(id);
    state.isolationMode = mode;
    state.blocked = { reason: 'x', stage: 'gate', evidence: [], at: '2026-12-01T00:00:00Z' };
    return { id, group: 'g', task: { writeSet: [] }, state } as unknown as TaskRuntime;
  };
  const ctx = {
    tasks: new Map([
      ['g/isolated', task('g/isolated', 'worktree')],
      ['g/shared', task('g/shared', 'none')],
    ]),
    claimIndex: held,
    claims: {
      release: async (id: string) => {
        released.push(id);
        return [...held].filter(([, h]) => h === id).map(([p]) => p);
      },
    },
    bus: { emit: (e: { type: string }) => events.push(e) },
    options: { isolation: {} },
  } as unknown as DispatchContext;
  return { ctx, held, released, events };
}

describe('a blocked task delays only its own dependency closure', () => {
  it('under worktree isolation its claim is released; in the shared workspace it is kept', async () => {
    const { ctx, held, released, events } = run();
    await releaseBlockedClaims(ctx);
    expect(released).toEqual(['g/isolated']);
    expect([...held]).toEqual([['src/shared.ts', 'g/shared']]);
    expect(events).toMatchObject([
      {
        type: 'task.isolation',
        task: 'g/isolated',
        step: 'claim-released',
        files: ['src/index.ts'],
      },
    ]);
    // Nothing to do the next time.
    await releaseBlockedClaims(ctx);
    expect(released).toEqual(['g/isolated']);
  });
});

/** One machine on a shared backlog: its own context on a store handle sharing `data`. */
function machine(data: MemoryStoreData, name: string) {
  const store = createMemoryStore({ data });
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const state = newTaskState('g/t');
  state.isolationMode = 'worktree';
  state.blocked = { reason: 'x', stage: 'worker', evidence: [], at: '2026-12-01T00:00:00Z' };
  const rt = { id: 'g/t', group: 'g', task: { writeSet: [] }, state } as unknown as TaskRuntime;
  const ctx = {
    tasks: new Map([['g/t', rt]]),
    claimIndex: new Map<string, string>(),
    claims: store.claims,
    leases: new TaskLeases(store.leases, name),
    shared: {},
    bus: { emit: (e: { type: string }) => events.push(e) },
    options: { isolation: {} },
  } as unknown as DispatchContext;
  return { ctx, rt, events, store };
}

describe('a blocked task on a shared backlog', () => {
  it('its claims are released only under its current lease, by whichever machine holds it, indexed there or not', async () => {
    const data = createMemoryStore().data;
    const a = machine(data, 'run-a');
    const b = machine(data, 'run-b');
    // A holds g/t and its claim, saves it blocked; its lease ends (the block recorded).
    const fenceA = await a.ctx.leases.fenceFor('g/t');
    await a.store.claims.tryClaim('g/t', ['src/p.ts'], { fence: fenceA });
    a.ctx.claimIndex.set('src/p.ts', 'g/t');
    await a.ctx.leases.release('g/t');
    // A human retries it; B takes it and claims its path again (held by g/t: kept).
    const fenceB = await b.ctx.leases.fenceFor('g/t');
    expect(await b.store.claims.tryClaim('g/t', ['src/p.ts'], { fence: fenceB })).toEqual({
      ok: true,
      paths: ['src/p.ts'],
    });
    // A's late pass frees nothing of B's: no unfenced release on a shared run, a stale fence refused.
    await releaseBlockedClaims(a.ctx);
    await expect(releaseBlockedClaim(a.ctx, a.rt, fenceA)).rejects.toMatchObject({
      code: 'SY_LEASE_LOST',
    });
    expect(await b.store.claims.holderOf('src/p.ts')).toBe('g/t');
    expect(a.events).toEqual([]);
    // B (which took g/t over with no claim in its own index) blocks it: the claim is released.
    await releaseBlockedClaim(b.ctx, b.rt, fenceB);
    expect(await b.store.claims.holderOf('src/p.ts')).toBeUndefined();
    expect(b.events).toMatchObject([
      { type: 'task.isolation', task: 'g/t', step: 'claim-released', files: ['src/p.ts'] },
    ]);
  });
});
