import { newTaskState } from '@switchyard/core';
import type { Clock } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { waitLeftMs, waitUntil } from './task-wait.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/** A clock whose wall time and monotonic time the test moves separately. */
function fakeClock(): Clock & { wall: number; mono: number } {
  const clock = {
    wall: Date.parse('2026-12-01T10:00:00.000Z'),
    mono: 1_000,
    now: () => new Date(clock.wall),
    monotonicMs: () => clock.mono,
  };
  return clock;
}

function contextOn(clock: Clock): DispatchContext {
  return { now: () => clock.now(), monotonicMs: () => clock.monotonicMs() } as DispatchContext;
}

function runtime(): TaskRuntime {
  return { id: 'g/t', group: 'g', state: newTaskState('g/t') } as TaskRuntime;
}

const HOUR = 3_600_000;

describe('task waits run on the monotonic clock', () => {
  it('a wall-clock step during the run neither stretches nor skips a backoff', () => {
    const clock = fakeClock();
    const ctx = contextOn(clock);
    const rt = runtime();
    waitUntil(ctx, rt, new Date(clock.wall + 20_000));
    expect(rt.state.notBeforeBound).toEqual({ until: rt.state.notBefore, delayMs: 20_000 });
    clock.wall -= HOUR;
    clock.mono += 5_000;
    expect(waitLeftMs(ctx, rt)).toBe(15_000);
    clock.wall += 3 * HOUR;
    expect(waitLeftMs(ctx, rt)).toBe(15_000);
    clock.mono += 15_000;
    expect(waitLeftMs(ctx, rt)).toBe(0);
  });

  it('after a restart with the clock set back, the persisted wait lasts at most its delay', () => {
    const before = fakeClock();
    const rt = runtime();
    waitUntil(contextOn(before), rt, new Date(before.wall + 20_000));
    // a new dispatcher: new monotonic origin, no in-memory wait, the wall clock an hour behind
    const after = fakeClock();
    after.wall = before.wall - HOUR;
    after.mono = 50;
    const again: TaskRuntime = { ...rt, state: structuredClone(rt.state) };
    delete again.wait;
    expect(waitLeftMs(contextOn(after), again)).toBe(20_000);
    after.wall += HOUR; // set right again: the wait stays on the monotonic clock
    after.mono += 19_000;
    expect(waitLeftMs(contextOn(after), again)).toBe(1_000);
  });

  it('a notBefore set without waitUntil (an older state) keeps its wall-clock instant', () => {
    const clock = fakeClock();
    const ctx = contextOn(clock);
    const rt = runtime();
    rt.state.notBefore = new Date(clock.wall + 60_000).toISOString();
    expect(waitLeftMs(ctx, rt)).toBe(60_000);
    delete rt.state.notBefore;
    expect(waitLeftMs(ctx, rt)).toBe(0);
  });
});
