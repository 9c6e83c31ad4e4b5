import type { Decision } from '../state/state-schema.js';

/** Where a parked stage resumes: the candidate whose quota resets first, and when. */
export interface ParkPlan {
  target: string;
  until: string;
  /** Every candidate of the stage with its reset instant (ISO 8601). */
  resets: Record<string, string>;
}

/**
 * Whether a stage should be parked instead of charged: true when every candidate of the
 * decision is cooling down with a known reset instant in the future (a quota that lifts at a
 * known time is not a failure of the task). Returns the candidate that resets first (ties:
 * catalog order), or undefined when some candidate has no cooldown.
 */
export function planPark(
  decision: Pick<Decision, 'candidates'>,
  cooldowns: Readonly<Record<string, string>>,
  now: Date,
): ParkPlan | undefined {
  if (decision.candidates.length === 0) return undefined;
  const resets: Record<string, string> = {};
  let first: { target: string; at: number } | undefined;
  for (const target of decision.candidates) {
    const at = Date.parse(cooldowns[target] ?? '');
    if (!(at > now.getTime())) return undefined;
    resets[target] = new Date(at).toISOString();
    if (!first || at < first.at) first = { target, at };
  }
  if (!first) return undefined;
  return { target: first.target, until: new Date(first.at).toISOString(), resets };
}
