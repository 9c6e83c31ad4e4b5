/**
 * The two clocks switchyard reads. Wall time (`now`) is what is recorded and shown (ISO
 * timestamps, provider reset instants); monotonic time (`monotonicMs`) is what every duration,
 * time limit and in-run wait is measured with, so a wall-clock step (NTP, a suspended laptop,
 * an administrator) neither kills a healthy agent nor stretches a backoff.
 */
export interface Clock {
  /** Wall time: for timestamps and instants that mean a time of day. */
  now(): Date;
  /** Milliseconds on a clock that only moves forward (arbitrary origin, this process only). */
  monotonicMs(): number;
}

/** The system's clocks: `Date` and `performance.now()` (CLOCK_MONOTONIC on Linux). */
export const systemClock: Clock = {
  now: () => new Date(),
  monotonicMs: () => performance.now(),
};

/** A stopwatch on the monotonic clock: each call returns the ms since it was made (≥ 0). */
export function stopwatch(clock: Pick<Clock, 'monotonicMs'> = systemClock): () => number {
  const start = clock.monotonicMs();
  return () => Math.max(0, Math.round(clock.monotonicMs() - start));
}
