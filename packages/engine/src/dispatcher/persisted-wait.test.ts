import { describe, expect, it } from 'vitest';
import { persistedWaitLeftMs, waitBoundOf } from './persisted-wait.js';

const t0 = new Date('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

describe('a persisted wait is re-checked against its own delay', () => {
  it('a clock set back an hour after a crash does not stretch a 20 s backoff', () => {
    const bound = waitBoundOf(at(20_000), t0);
    expect(bound).toEqual({ until: at(20_000).toISOString(), delayMs: 20_000 });
    // the next dispatcher starts 5 s later by the real clock, which now reads one hour behind
    expect(persistedWaitLeftMs(bound.until, bound, at(5_000 - 3_600_000))).toBe(20_000);
    // without the clock step: what is left of the wait
    expect(persistedWaitLeftMs(bound.until, bound, at(5_000))).toBe(15_000);
    expect(persistedWaitLeftMs(bound.until, bound, at(25_000))).toBe(0);
  });

  it('a bound recorded for another instant, a missing one or a bad instant', () => {
    const bound = waitBoundOf(at(20_000), t0);
    // notBefore was set again by a path that recorded no bound: the wall-clock instant holds
    expect(persistedWaitLeftMs(at(60_000).toISOString(), bound, t0)).toBe(60_000);
    expect(persistedWaitLeftMs(at(60_000).toISOString(), undefined, t0)).toBe(60_000);
    expect(persistedWaitLeftMs(undefined, bound, t0)).toBe(0);
    expect(persistedWaitLeftMs('not a date', undefined, t0)).toBe(0);
    expect(waitBoundOf(at(-5), t0).delayMs).toBe(0);
  });
});
