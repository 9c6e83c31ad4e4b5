import { persist, persistLater } from '../context.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * Writes the task's state after a check passed (the task already moved on), or leaves it to
 * the next write when the stage it moved to writes before it does anything (see
 * `persistLater`): an agent stage (its attempt's `starting` record), the archive (its record
 * of `complete.log`), or the change verification of a plan without a definition of done (a
 * check merged the same way). Before a gate command, project gates or an apply, it writes now.
 */
export function persistPassedCheck(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  if (!writesFirst(rt)) return persist(ctx, rt);
  persistLater(rt);
  return Promise.resolve();
}

function writesFirst(rt: TaskRuntime): boolean {
  switch (rt.state.phase) {
    case 'review':
    case 'redteam':
    case 'archive':
      return true;
    case 'gate':
      return !rt.task.definitionOfDone;
    default:
      return false;
  }
}
