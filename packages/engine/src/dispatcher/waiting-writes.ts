import { writeUnsaved } from './context.js';
import type { DispatchContext } from './types.js';

/**
 * How long a transition left to a task's next write (`persistLater`) may wait for it once a
 * scheduling pass did not start the task's next stage (no slot, a cooldown…).
 */
export const WAITING_WRITE_DELAY_MS = 1000;

const WAITING_KEY = 'waiting tasks';

/** The deferred write of the tasks that wait with transitions left unsaved. */
export interface WaitingWrites {
  /** After a pass: writes what is still unsaved in {@link WAITING_WRITE_DELAY_MS} on the
   * run's clock (one deferred write for every pass meanwhile), except the tasks whose stage
   * runs then (it writes first). */
  arm(): void;
  /** The run's loop ended: no more timers (the run's deferred writes, see `ctx.deferred`);
   * a write under way is awaited (`finalizeRun` writes the rest). */
  settle(): Promise<void>;
}

/**
 * Status and the monitor read a task's phase from the store, and a task may wait long for a
 * slot: its passed check is written then, not left to a stage that has not started. Not at
 * once, though: in a busy run almost every task waits a moment for a slot after each check,
 * and the stage that then starts writes its `starting` record anyway (one task-state write
 * per wait saved). A crash meanwhile loses only what `persistLater` allows to lose.
 */
export function waitingWrites(
  ctx: DispatchContext,
  running: { has(task: string): boolean },
): WaitingWrites {
  return {
    arm() {
      if (ctx.deferred.pending(WAITING_KEY)) return;
      ctx.deferred.defer(WAITING_KEY, WAITING_WRITE_DELAY_MS, () => writeUnsaved(ctx, running));
    },
    // The loop ended with nothing running: the run's other deferred writes (a running
    // attempt's PID) have nothing left to write either.
    settle: () => ctx.deferred.settle(),
  };
}
