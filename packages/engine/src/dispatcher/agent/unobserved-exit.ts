import type { Classification, RunOutcome } from '@switchyard/core';

const DONE_STATUS = new Set(['success', 'succeeded', 'completed', 'complete', 'done']);

/** True for a final JSONL event that reports a successful end in generic terms. */
export function isSuccessfulFinalEvent(event: Record<string, unknown> | undefined): boolean {
  if (!event || event.is_error === true || event.error !== undefined) return false;
  if (event.is_error === false) return true;
  for (const key of ['status', 'subtype'] as const) {
    const value = event[key];
    if (typeof value === 'string' && DONE_STATUS.has(value.toLowerCase())) return true;
  }
  return typeof event.type === 'string' && /(?:^|[._])(?:completed|succeeded)$/i.test(event.type);
}

/**
 * A re-attached attempt's exit status cannot be read (it is not our child), nor can that of
 * an orphan that ended while no dispatcher ran. When no
 * classifier found a fault in its evidence, it is judged by its final event: a generic
 * successful final event means success; anything else is `process-termination`, never a
 * silent success.
 */
export function judgeUnobservedExit(
  outcome: Pick<RunOutcome, 'exitObserved' | 'endedBy' | 'signal' | 'evidence'>,
  verdict: Classification,
): Classification {
  if (outcome.exitObserved || outcome.endedBy !== undefined || outcome.signal !== null)
    return verdict;
  if (verdict.class !== 'success' && verdict.classifier !== 'core') return verdict;
  const last = outcome.evidence.lastEvent;
  if (outcome.evidence.terminalEvents.length === 0 && isSuccessfulFinalEvent(last)) {
    return {
      class: 'success',
      confidence: 'likely',
      evidence: [JSON.stringify(last)],
      classifier: 'dispatcher',
    };
  }
  return {
    class: 'process-termination',
    confidence: 'likely',
    evidence: [
      'exit status not observed (re-attached after a dispatcher restart) and no successful final event',
    ],
    classifier: 'dispatcher',
  };
}
