import type { Decision } from '@switchyard/core';

/** How long, and how often in a row, one stage may wait for quota resets (config `park`). */
export interface ParkPolicy {
  /** Longest total wait of one stage's consecutive parks (default 6 h). */
  maxWaitMs: number;
  /** Most consecutive parks (moves to a reset candidate included) of one stage (default 10). */
  maxParks: number;
}

/** Documented defaults of the project config `park`. */
export const DEFAULT_PARK_POLICY: ParkPolicy = { maxWaitMs: 6 * 3600_000, maxParks: 10 };

/** What a stage has spent on parks since it last passed. */
export interface ParkSpent {
  parks: number;
  waitedMs: number;
}

/** What to do with a stage whose every candidate waits for a known quota reset. */
export type QuotaWait =
  | {
      /** Wait until the first reset, then run on that candidate. */
      kind: 'park';
      target: string;
      until: string;
      /** Every candidate of the stage with its reset instant (ISO 8601). */
      resets: Record<string, string>;
    }
  | {
      /** The first reset has passed already: run on that candidate at once. */
      kind: 'move';
      target: string;
      resets: Record<string, string>;
    }
  | {
      /** The park budget is spent (or the wait would pass it): the stage blocks. */
      kind: 'over-budget';
      reason: string;
      resets: Record<string, string>;
    };

/** Input of {@link planQuotaWait}. */
export interface QuotaWaitInput {
  decision: Pick<Decision, 'candidates' | 'used'>;
  /** Target id -> reset instant (ISO), the failure just seen included. */
  cooldowns: Readonly<Record<string, string>>;
  now: Date;
  spent: ParkSpent;
  policy: ParkPolicy;
}

/**
 * Where a stage goes when quota errors with reset times hold its candidates: a quota that
 * lifts at a known time is not a failure of the task, so the stage waits instead of spending
 * its failure budget. It applies when every candidate is cooling down with a known future
 * reset, or when every candidate has been used and each named a reset (some maybe passed).
 * The stage goes to the candidate whose reset comes first (ties: catalog order): at once when
 * that reset has passed, else parked until it — never waiting on a later reset while an
 * earlier one is free. Bounded: the `maxParks`-th consecutive park, or a wait that would
 * take the stage's parked time past `maxWaitMs`, is `over-budget` instead. Undefined when
 * the rule does not apply (some candidate is free or has no known reset).
 */
export function planQuotaWait(input: QuotaWaitInput): QuotaWait | undefined {
  const { decision, cooldowns, now, spent, policy } = input;
  if (decision.candidates.length === 0) return undefined;
  const resets: Record<string, string> = {};
  let first: { target: string; at: number } | undefined;
  let allFuture = true;
  for (const target of decision.candidates) {
    const at = Date.parse(cooldowns[target] ?? '');
    if (Number.isNaN(at)) return undefined;
    if (!(at > now.getTime())) allFuture = false;
    resets[target] = new Date(at).toISOString();
    if (!first || at < first.at) first = { target, at };
  }
  const allUsed = decision.candidates.every((c) => decision.used.includes(c));
  if (!first || !(allFuture || allUsed)) return undefined;
  const waitMs = Math.max(0, first.at - now.getTime());
  if (spent.parks + 1 > policy.maxParks)
    return {
      kind: 'over-budget',
      reason: `${spent.parks} consecutive parks for quota resets (park.maxParks ${policy.maxParks})`,
      resets,
    };
  if (spent.waitedMs + waitMs > policy.maxWaitMs)
    return {
      kind: 'over-budget',
      reason: `waiting until ${new Date(first.at).toISOString()} for the first quota reset would take the parked time to ${formatDuration(spent.waitedMs + waitMs)}, past park.maxWaitSeconds (${formatDuration(policy.maxWaitMs)})`,
      resets,
    };
  if (waitMs === 0) return { kind: 'move', target: first.target, resets };
  return { kind: 'park', target: first.target, until: new Date(first.at).toISOString(), resets };
}

/** `2h 5m`, `45s`: a duration for park reasons and status. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return s > 0 ? `${m}m ${s}s` : `${m}m`;
  return `${s}s`;
}

/** A park budget in words: `4 park(s) and 5h 10m of waiting left`. */
export function parkBudgetText(budget: { parksLeft: number; waitLeftMs: number }): string {
  return `${budget.parksLeft} park(s) and ${formatDuration(budget.waitLeftMs)} of waiting left`;
}
