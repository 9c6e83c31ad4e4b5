/**
 * A wait that outlives the process (a backoff, a cooldown, a parked stage) is persisted as a
 * wall-clock instant, the only kind another process can read. After a restart that instant is
 * re-checked: a clock set back while nobody ran would otherwise stretch a 20 s backoff into an
 * hour. The bound is the wait's own delay, recorded beside it: a wait never lasts longer than
 * it was set to.
 */
export interface WaitBound {
  /** The instant the bound belongs to (the wait it was recorded with). */
  until: string;
  /** The delay the wait was set with, in ms. */
  delayMs: number;
}

/** The bound to record with a wait until `until`, set at `now`. */
export function waitBoundOf(until: Date, now: Date): WaitBound {
  return { until: until.toISOString(), delayMs: Math.max(0, until.getTime() - now.getTime()) };
}

/**
 * Milliseconds left of a persisted wait at `now` (0 when over): the wall-clock difference,
 * capped by the wait's recorded delay when the bound belongs to this instant. A wait without a
 * bound (state written by an older version) keeps its wall-clock instant.
 */
export function persistedWaitLeftMs(
  notBefore: string | undefined,
  bound: WaitBound | undefined,
  now: Date,
): number {
  if (notBefore === undefined) return 0;
  const at = Date.parse(notBefore);
  if (!Number.isFinite(at)) return 0;
  const left = Math.max(0, at - now.getTime());
  return bound && bound.until === notBefore ? Math.min(left, bound.delayMs) : left;
}
