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
  /**
   * Calls `fn` once `ms` have passed on this clock and returns its cancel; a timer never keeps
   * the process alive. Absent on the system clock and on a clock that only reads the time:
   * its user falls back to {@link systemTimers}. A
   * fake clock implements it to fire the timers as the test moves it.
   */
  after?: Timers['after'];
}

/** Timers on a clock (the system's, or a fake one a test moves by hand). */
export interface Timers {
  after(ms: number, fn: () => void): () => void;
}

/** `setTimeout`, unref'd: a pending timer does not hold an ending process open. */
export const systemTimers: Timers = {
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

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
