import type { PriceTable } from '@switchyard/config';
import type { AttemptUsage, RunEvent } from '@switchyard/core';
import { formatUsd, priceUsage, roundUsd, tokensOf } from './price.js';

/** Summed usage of several attempts. */
export interface UsageTotals {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  costUsd: number;
  /** True when part of `costUsd` comes from the price table, not from the agents. */
  costEstimated: boolean;
  /** Attempts that reported tokens but no cost, with no price to estimate one. */
  unpriced: number;
}

/** One attempt's usage with where it ran. */
export interface AttemptUsageEntry {
  attempt: string;
  task: string;
  role: string;
  target: string;
  planLoop: number;
  usage: AttemptUsage;
}

/** Usage per attempt, task, target and for the whole workspace (every run of its log). */
export interface UsageSummary {
  run: UsageTotals;
  byTask: Record<string, UsageTotals>;
  byTarget: Record<string, UsageTotals>;
  attempts: AttemptUsageEntry[];
}

/** Empty totals. */
export function emptyTotals(): UsageTotals {
  return {
    attempts: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    totalTokens: 0,
    costUsd: 0,
    costEstimated: false,
    unpriced: 0,
  };
}

/** Adds one attempt's usage to `totals` (in place). */
export function addUsage(totals: UsageTotals, usage: AttemptUsage): UsageTotals {
  totals.attempts += 1;
  totals.inputTokens += usage.inputTokens ?? 0;
  totals.outputTokens += usage.outputTokens ?? 0;
  totals.cacheReadTokens += usage.cacheReadTokens ?? 0;
  totals.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
  totals.totalTokens += tokensOf(usage);
  if (usage.costUsd !== undefined) totals.costUsd = roundUsd(totals.costUsd + usage.costUsd);
  else if (tokensOf(usage) > 0) totals.unpriced += 1;
  if (usage.costEstimated) totals.costEstimated = true;
  return totals;
}

/**
 * Sums the usage recorded on `attempt.finished` events (each attempt counted once, also
 * when a restarted dispatcher logged it again), pricing token-only reports with `prices`
 * (catalog target id -> price).
 */
export function summarizeUsage(events: readonly RunEvent[], prices: PriceTable = {}): UsageSummary {
  const seen = new Map<string, AttemptUsageEntry>();
  for (const event of events) {
    if (event.type !== 'attempt.finished' || !event.usage) continue;
    seen.set(event.attempt, {
      attempt: event.attempt,
      task: event.task,
      role: event.role,
      target: event.target,
      planLoop: event.planLoop,
      usage: priceUsage(event.usage, prices[event.target]),
    });
  }
  const summary: UsageSummary = { run: emptyTotals(), byTask: {}, byTarget: {}, attempts: [] };
  for (const entry of seen.values()) {
    summary.attempts.push(entry);
    addUsage(summary.run, entry.usage);
    summary.byTask[entry.task] = addUsage(summary.byTask[entry.task] ?? emptyTotals(), entry.usage);
    summary.byTarget[entry.target] = addUsage(
      summary.byTarget[entry.target] ?? emptyTotals(),
      entry.usage,
    );
  }
  return summary;
}

/** `$0.012 (est.)`-style text of a cost, to a tenth of a cent ({@link formatUsd}). */
export function formatCost(totals: Pick<UsageTotals, 'costUsd' | 'costEstimated'>): string {
  return `${formatUsd(totals.costUsd)}${totals.costEstimated ? ' (est.)' : ''}`;
}

/** Sums the usage recorded on attempts (e.g. a task state's attempt records). */
export function totalsOf(usages: Iterable<AttemptUsage | undefined>): UsageTotals {
  const totals = emptyTotals();
  for (const usage of usages) if (usage) addUsage(totals, usage);
  return totals;
}

/** One line for logs: `36,650 tokens (in 21,600 · out 4,250 · cache 10,800) · $0.135`. */
export function describeUsage(totals: UsageTotals): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const cache = totals.cacheReadTokens + totals.cacheWriteTokens;
  const cost = totals.costUsd > 0 || totals.unpriced === 0 ? ` · ${formatCost(totals)}` : '';
  const unpriced = totals.unpriced > 0 ? ` (+${totals.unpriced} attempt(s) without a price)` : '';
  return `${n(totals.totalTokens)} tokens (in ${n(totals.inputTokens)} · out ${n(totals.outputTokens)}${cache ? ` · cache ${n(cache)}` : ''})${cost}${unpriced}`;
}

/** The `usage:` line of `complete.log`, or nothing when no attempt reported usage. */
export function usageLine(usages: Iterable<AttemptUsage | undefined>): string[] {
  const totals = totalsOf(usages);
  return totals.attempts > 0 ? [`usage: ${describeUsage(totals)}`] : [];
}
