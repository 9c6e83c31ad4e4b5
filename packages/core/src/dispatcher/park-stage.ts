import type { BudgetStageName } from '../lifecycle/lifecycle-table.js';
import type { Classification } from '../plugins/types.js';
import { planPark } from '../selection/park.js';
import type { AttemptRecord, Decision } from '../state/state-schema.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { waitUntil } from './task-wait.js';

/**
 * Parks a stage whose candidates are all cooling down with a known reset time (this
 * failure named one): the failure is not charged to the stage budget, the decision moves to
 * the candidate that resets first, and the task waits until then (`state.parked`,
 * `task.parked`). Returns false, changing nothing, when some candidate has no known reset.
 */
export function parkIfAllCooling(
  ctx: DispatchContext,
  rt: TaskRuntime,
  budget: BudgetStageName,
  decision: Decision,
  record: AttemptRecord,
  verdict: Classification,
): boolean {
  const now = ctx.now();
  if (!verdict.retryAfter || !(Date.parse(verdict.retryAfter) > now.getTime())) return false;
  const cooldowns = { ...rt.state.cooldowns, [decision.target]: verdict.retryAfter };
  const plan = planPark(decision, cooldowns, now);
  if (!plan) return false;
  const state = rt.state;
  // The failure was counted on entry; a quota that lifts at a known time is not charged.
  state.failures[budget] = Math.max(0, state.failures[budget] - 1);
  state.cooldowns = cooldowns;
  waitUntil(ctx, rt, new Date(plan.until));
  state.parked = { stage: budget, until: plan.until, resets: plan.resets, at: now.toISOString() };
  if (plan.target !== decision.target) {
    // The red-team review keeps its decision apart from the normal review's.
    state.decisions[budget === 'redteam' ? 'redteam' : decision.stage] = {
      ...decision,
      target: plan.target,
      targetSnapshot: ctx.catalog.targets[plan.target],
    };
    state.failoverFrom = record.id;
  }
  ctx.bus.emit({
    type: 'task.parked',
    task: rt.id,
    stage: budget,
    until: plan.until,
    targets: Object.keys(plan.resets),
  });
  return true;
}
