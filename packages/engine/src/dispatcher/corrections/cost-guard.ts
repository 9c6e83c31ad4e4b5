import type { AttemptRecord } from '@switchyard/core';
import { priceUsage, roundUsd } from '@switchyard/runner-kit';
import type { StartGuard, StartVeto } from '../../events/start-guard.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { type BudgetBreach, breachUsd, checkBudget, type Spent } from './budget.js';

/** The cost of attempts: reported, else estimated from the price table. */
export function spentOn(ctx: DispatchContext, attempts: Iterable<AttemptRecord>): Spent {
  let usd = 0;
  let estimated = false;
  for (const a of attempts) {
    if (!a.usage) continue;
    const priced = priceUsage(a.usage, ctx.options.prices?.[a.target]);
    usd = roundUsd(usd + (priced.costUsd ?? 0));
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
  const veto = overBudgetVeto(ctx, rt);
  if (!veto) return false;
  blockTask(ctx, rt, { stage: veto.stage, reason: veto.reason, evidence: veto.evidence });
  return true;
}

/**
 * The cost budget as a start guard of the run's bus: the start of a task's next stage is
 * refused, with the figures, once the task (or the run) has passed its budget.
 */
export function costBudgetGuard(ctx: DispatchContext): StartGuard {
  return (request) => {
    const rt = ctx.tasks.get(request.task);
    return rt ? overBudgetVeto(ctx, rt) : undefined;
  };
}

/** Why the task may not go on for its cost, or undefined while it is within the budgets. */
function overBudgetVeto(ctx: DispatchContext, rt: TaskRuntime): StartVeto | undefined {
  if (rt.state.blocked || rt.state.phase === 'done') return undefined;
  const breach = budgetBreach(ctx, rt);
  if (!breach) return undefined;
  const lines = rt.state.attempts
    .filter((a) => a.usage)
    .map((a) => {
      const priced = priceUsage(a.usage!, ctx.options.prices?.[a.target]);
      return `  ${a.id} (${a.role} on ${a.target}): ${priced.costUsd === undefined ? 'no cost reported' : `${breachUsd(priced.costUsd)}${priced.costEstimated ? ' (est.)' : ''}`}`;
    });
  return {
    by: 'cost-budget',
    stage: 'cost-budget',
    reason: `cost budget passed: ${breach.message}`,
    evidence: [
      `budget: cost.${breach.scope === 'task' ? 'maxPerTaskUsd' : 'maxPerRunUsd'} = ${breach.limitUsd}`,
      `spent (${breach.scope}): ${breach.spentUsd.toFixed(4)} USD${breach.estimated ? ' (partly estimated from prices)' : ''}`,
      `phase when stopped: ${rt.state.phase}, plan loop ${rt.state.planLoop}`,
      'attempts of this task:',
      ...lines,
    ],
  };
}
