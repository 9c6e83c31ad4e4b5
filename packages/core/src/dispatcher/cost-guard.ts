import { type BudgetBreach, checkBudget, type Spent } from '../cost/budget.js';
import { priceUsage } from '../cost/usage.js';
import { formatCost } from '../cost/usage-totals.js';
import type { AttemptRecord } from '../state/state-schema.js';
import { blockTask } from './apply-failure.js';
import type { DispatchContext, TaskRuntime } from './context.js';

/** The cost of attempts: reported, else estimated from the price table. */
export function spentOn(ctx: DispatchContext, attempts: Iterable<AttemptRecord>): Spent {
  let usd = 0;
  let estimated = false;
  for (const a of attempts) {
    if (!a.usage) continue;
    const priced = priceUsage(a.usage, ctx.options.prices?.[a.target]);
    usd += priced.costUsd ?? 0;
    if (priced.costEstimated) estimated = true;
  }
  return { usd, estimated };
}

/** The budget this task (or this run) has passed, or undefined. */
export function budgetBreach(ctx: DispatchContext, rt: TaskRuntime): BudgetBreach | undefined {
  const budget = ctx.options.costBudget;
  if (budget?.maxPerTaskUsd === undefined && budget?.maxPerRunUsd === undefined) return undefined;
  const since = ctx.runStartedAt ?? 0;
  const runAttempts = [...ctx.tasks.values()].flatMap((t) =>
    t.state.attempts.filter((a) => Date.parse(a.startedAt) >= since),
  );
  return checkBudget(budget, spentOn(ctx, rt.state.attempts), spentOn(ctx, runAttempts));
}

/**
 * Blocks the task when its reported cost (or the run's) has passed a budget: the stage
 * stops, the figures (cap, spent, each priced attempt) are the evidence. True when blocked.
 */
export function stopOverBudget(ctx: DispatchContext, rt: TaskRuntime): boolean {
  if (rt.state.blocked || rt.state.phase === 'done') return false;
  const breach = budgetBreach(ctx, rt);
  if (!breach) return false;
  const lines = rt.state.attempts
    .filter((a) => a.usage)
    .map((a) => {
      const priced = priceUsage(a.usage!, ctx.options.prices?.[a.target]);
      return `  ${a.id} (${a.role} on ${a.target}): ${priced.costUsd === undefined ? 'no cost reported' : formatCost({ costUsd: priced.costUsd, costEstimated: priced.costEstimated ?? false })}`;
    });
  blockTask(ctx, rt, {
    stage: 'cost-budget',
    reason: `cost budget passed: ${breach.message}`,
    evidence: [
      `budget: cost.${breach.scope === 'task' ? 'maxPerTaskUsd' : 'maxPerRunUsd'} = ${breach.limitUsd}`,
      `spent (${breach.scope}): ${breach.spentUsd.toFixed(4)} USD${breach.estimated ? ' (partly estimated from prices)' : ''}`,
      `phase when stopped: ${rt.state.phase}, plan loop ${rt.state.planLoop}`,
      'attempts of this task:',
      ...lines,
    ],
  });
  return true;
}
