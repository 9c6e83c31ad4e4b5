import type { TaskRuntime } from '../types.js';

/** Default cap on plan loops when the PLAN sets no `max_plan_loops`. */
export const DEFAULT_MAX_PLAN_LOOPS = 5;

/** The task's cap on plan loops: `max_plan_loops` of its plan, else the default. */
export function maxPlanLoopsOf(rt: Pick<TaskRuntime, 'task'>): number {
  return rt.task.maxPlanLoops ?? DEFAULT_MAX_PLAN_LOOPS;
}
