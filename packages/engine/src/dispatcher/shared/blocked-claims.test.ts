import { newTaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { releaseBlockedClaims } from './blocked-claims.js';

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
