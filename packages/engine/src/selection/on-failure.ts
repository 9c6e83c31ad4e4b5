import type { Decision, FailureClass } from '@switchyard/core';
import { isFailoverClass } from '@switchyard/core';

/** Consecutive failures of one task stage that block the task. */
export const STAGE_FAILURE_BUDGET = 10;

/** Backoff between failed attempts, from the project config `retry`. */
export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Documented defaults of the project config `retry` block. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 2_000, maxDelayMs: 300_000 };

/** Exponential backoff for the n-th consecutive failure (n >= 1): base * 2^(n-1), capped. */
export function backoffDelay(n: number, policy: RetryPolicy): number {
  if (n < 1) return 0;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(n - 1, 30));
}

/** A failed attempt, as input to {@link decideAfterFailure}. */
export interface FailureInput {
  /** The stage's decision (self-check uses the worker's). */
  decision: Decision;
  /** Catalog targets by id: a moved decision snapshots its new target. */
  targets: Readonly<Record<string, unknown>>;
  failureClass: FailureClass;
  /** The classifier's evidence lines. */
  evidence: readonly string[];
  /** ISO instant the classifier says the target is usable again (quota reset). */
  retryAfter?: string | undefined;
  /** Consecutive failures of this task stage, this one included. */
  consecutiveFailures: number;
  /** Per-target cooldowns of the task (target id -> ISO instant). */
  cooldowns: Readonly<Record<string, string>>;
  retry: RetryPolicy;
  now: Date;
  budget?: number;
  /** When false (self-check), a failover class never moves the target. */
  allowFailover?: boolean;
}

/** What to do after a failed attempt. `decision` and `cooldowns` are new objects to persist. */
export type FailureAction =
  | {
      kind: 'failover';
      from: string;
      to: string;
      decision: Decision;
      cooldowns: Record<string, string>;
      notBefore: string;
    }
  | {
      kind: 'retry';
      target: string;
      delayMs: number;
      notBefore: string;
      decision: Decision;
      cooldowns: Record<string, string>;
    }
  | { kind: 'block'; reason: string; evidence: string[]; consecutiveFailures: number };

/**
 * The seed's failover rules as one pure function:
 * - 10 consecutive failures of a task stage block the task;
 * - only the five failover classes advance, at once (no backoff, no retry on the same
 *   target first), to the next UNUSED candidate of the decision;
 * - every other class keeps the target and retries after exponential backoff;
 * - with no unused candidate left, the stage never wraps around to a used one: it retries
 *   on the current target, waiting for the longer of the backoff and its cooldown (a
 *   classifier's `retryAfter`), until the budget blocks it.
 */
export function decideAfterFailure(input: FailureInput): FailureAction {
  const { decision, now } = input;
  const budget = input.budget ?? STAGE_FAILURE_BUDGET;
  const cooldowns: Record<string, string> = { ...input.cooldowns };
  if (input.retryAfter && Date.parse(input.retryAfter) > now.getTime()) {
    cooldowns[decision.target] = input.retryAfter;
  }
  const evidence = [...input.evidence];
  if (input.consecutiveFailures >= budget) {
    return {
      kind: 'block',
      reason: `${input.consecutiveFailures} consecutive failures in the ${decision.stage} stage (last: ${input.failureClass} on ${decision.target})`,
      evidence,
      consecutiveFailures: input.consecutiveFailures,
    };
  }
  const readyAt = (target: string) =>
    Math.max(now.getTime(), Date.parse(cooldowns[target] ?? '') || 0);
  if (input.allowFailover !== false && isFailoverClass(input.failureClass)) {
    const next = decision.candidates.find((c) => !decision.used.includes(c));
    if (next !== undefined) {
      return {
        kind: 'failover',
        from: decision.target,
        to: next,
        decision: {
          ...decision,
          target: next,
          targetSnapshot: input.targets[next],
          used: [...decision.used, next],
        },
        cooldowns,
        notBefore: new Date(readyAt(next)).toISOString(),
      };
    }
  }
  const target = decision.target;
  const at = Math.max(
    now.getTime() + backoffDelay(input.consecutiveFailures, input.retry),
    readyAt(target),
  );
  return {
    kind: 'retry',
    target,
    delayMs: at - now.getTime(),
    notBefore: new Date(at).toISOString(),
    decision,
    cooldowns,
  };
}
