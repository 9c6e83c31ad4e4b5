import { blockTask } from './corrections/block-task.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/**
 * Blocks a task a human asked to stop (from the monitor), once nothing of it runs: the block
 * escalates like any other, so the page offers retry and skip. False when there was nothing
 * to stop (no request, or the task is done or blocked already). In memory; the caller persists.
 */
export function blockStoppedTask(ctx: DispatchContext, rt: TaskRuntime): boolean {
  const request = rt.stopRequested;
  if (!request) return false;
  delete rt.stopRequested;
  if (rt.state.blocked || rt.state.phase === 'done') return false;
  blockTask(ctx, rt, {
    stage: rt.state.phase,
    reason: `stopped by ${request.by ?? 'a human'} from the monitor`,
    evidence: request.note ? [request.note] : [],
  });
  return true;
}
