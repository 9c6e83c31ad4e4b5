import type { CostBudget } from '@switchyard/config';

// A breach names amounts under a dollar to the hundredth of a cent, finer than what status
// shows: spent $0.0504 against a limit of $0.05 must not read "$0.050, over $0.050".
export const breachUsd = (costUsd: number): string => `$${costUsd.toFixed(costUsd >= 1 ? 2 : 4)}`;
const usd = breachUsd;

/** A passed budget, with the figures that prove it. */
export interface BudgetBreach {
  scope: 'task' | 'run';
  limitUsd: number;
  spentUsd: number;
  /** Part of the figure is a price-table estimate. */
  estimated: boolean;
  /** One line a human reads. */
  message: string;
}

/** Spent so far: a cost and whether part of it is estimated. */
export interface Spent {
  usd: number;
  estimated: boolean;
}

/**
 * The first budget the figures pass (the task's before the run's), or undefined. A cost
 * equal to the cap is within it: only passing it blocks.
 */
export function checkBudget(
  budget: CostBudget | undefined,
  task: Spent,
  run: Spent,
): BudgetBreach | undefined {
  const over = (scope: 'task' | 'run', limit: number | undefined, spent: Spent) =>
    limit !== undefined && spent.usd > limit
      ? {
          scope,
          limitUsd: limit,
          spentUsd: spent.usd,
          estimated: spent.estimated,
          message: `${scope === 'task' ? 'the task' : 'this run'} cost ${usd(spent.usd)}${spent.estimated ? ' (partly estimated)' : ''}, over cost.${scope === 'task' ? 'maxPerTaskUsd' : 'maxPerRunUsd'} = ${usd(limit)}`,
        }
      : undefined;
  return over('task', budget?.maxPerTaskUsd, task) ?? over('run', budget?.maxPerRunUsd, run);
}
