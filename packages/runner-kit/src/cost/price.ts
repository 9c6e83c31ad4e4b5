import type { TokenPrice } from '@switchyard/config';
import type { AttemptUsage } from '@switchyard/core';

/** Total tokens of a usage: the reported total, else the sum of the parts. */
export function tokensOf(usage: AttemptUsage): number {
  const parts =
    (usage.inputTokens ?? 0) +
    (usage.outputTokens ?? 0) +
    (usage.cacheReadTokens ?? 0) +
    (usage.cacheWriteTokens ?? 0);
  return Math.max(parts, usage.totalTokens ?? 0);
}

/**
 * A sum of USD amounts without binary float noise (`0.00336`, not `0.0033599999999999997`):
 * rounded to a millionth of a dollar, far below anything displayed or billed. JSON keeps this
 * precision (a machine sums it); what people read is {@link formatUsd}.
 */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

/**
 * A USD amount as people read it (status, retro, monitor, logs): rounded to a tenth of a cent
 * (`$0.756`, `$12.340`); an amount above zero but below half a tenth shows as `<$0.001`
 * rather than as a free `$0.000`.
 */
export function formatUsd(usd: number): string {
  if (usd > 0 && usd < 0.0005) return '<$0.001';
  return `$${usd.toFixed(3)}`;
}

/**
 * The usage with a cost: the agent's own `costUsd` when it reported one, else an estimate
 * from `price` (marked `costEstimated`), else unchanged (tokens without a price).
 */
export function priceUsage(usage: AttemptUsage, price: TokenPrice | undefined): AttemptUsage {
  if (usage.costUsd !== undefined || !price) return usage;
  const perTok = (perM: number | undefined, fallback: number) => (perM ?? fallback) / 1_000_000;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  // Only a total: bill it as input (the cheaper side), the estimate stays a lower bound.
  const onlyTotal = input + output === 0 ? (usage.totalTokens ?? 0) : 0;
  const costUsd =
    (input + onlyTotal) * perTok(price.inputPerMTok, 0) +
    output * perTok(price.outputPerMTok, 0) +
    (usage.cacheReadTokens ?? 0) * perTok(price.cacheReadPerMTok, price.inputPerMTok) +
    (usage.cacheWriteTokens ?? 0) * perTok(price.cacheWritePerMTok, price.inputPerMTok);
  return { ...usage, costUsd: roundUsd(costUsd), costEstimated: true };
}
