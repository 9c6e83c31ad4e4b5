import { persistedWaitLeftMs, waitBoundOf } from './persisted-wait.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/**
 * Makes the task wait until `until` (a backoff, a cooldown, a parked stage, an apply retry):
 * persisted as `notBefore` with its delay as the bound a restart re-checks it against, and
 * kept on this run's monotonic clock, so a wall-clock step during the run changes nothing.
 */
export function waitUntil(ctx: DispatchContext, rt: TaskRuntime, until: Date): void {
  const bound = waitBoundOf(until, ctx.now());
  rt.state.notBefore = bound.until;
  rt.state.notBeforeBound = bound;
  rt.wait = { notBefore: bound.until, monotonicUntil: ctx.monotonicMs() + bound.delayMs };
}

/**
 * Milliseconds the task still waits (0: it may start). A wait set in this run is read on the
 * monotonic clock; one found in the state (set by an earlier dispatcher, or by a path that
 * did not come through `waitUntil`) is re-checked against its bound once, then kept on the
 * monotonic clock too.
 */
export function waitLeftMs(ctx: DispatchContext, rt: TaskRuntime): number {
  const notBefore = rt.state.notBefore;
  if (notBefore === undefined) return 0;
  if (rt.wait?.notBefore !== notBefore) {
    const left = persistedWaitLeftMs(notBefore, rt.state.notBeforeBound, ctx.now());
    rt.wait = { notBefore, monotonicUntil: ctx.monotonicMs() + left };
  }
  return Math.max(0, rt.wait.monotonicUntil - ctx.monotonicMs());
}
