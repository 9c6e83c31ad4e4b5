import { advance } from '../advance.js';
import { persist } from '../context.js';
import { correctOrBlock } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { brokenPromises } from './completion-promise.js';
import { persistPassedCheck } from './passed-check.js';

/**
 * The completion promise, before anything lands (apply or archive): it holds when the work as
 * it is now passed every check the dispatcher ran on it (see `brokenPromises`). An unmet part
 * goes back to the worker as a correction naming it, charged to `failures.promise` (ten in a
 * row block the task); nothing lands until it holds.
 */
export async function runPromiseStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const broken = brokenPromises(ctx, rt);
  if (broken.length === 0) {
    advance(rt, 'passed');
    return persistPassedCheck(ctx, rt);
  }
  correctOrBlock(ctx, rt, {
    stage: 'promise',
    correction: {
      source: 'promise',
      summary: `the completion promise is not met, so nothing was applied: ${broken.join('; ')}. Make each part hold; the checks run again after you`,
      evidence: broken,
    },
    blockReason: (n) =>
      `${n} consecutive completion promises unmet, so nothing was applied (${broken.length} part(s): ${broken.join('; ')})`,
  });
  await persist(ctx, rt);
}
