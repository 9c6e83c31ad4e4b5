import { describe, expect, it } from 'vitest';
import { afterPass } from './scheduler.js';

describe('the scheduling loop after a pass', () => {
  it('passes again when a stage ended during the pass, even with nothing left in flight', () => {
    // The stages the pass started all ended while it wrote unsaved states: their tasks have a
    // next stage to start, so the run is not over.
    expect(
      afterPass({ woken: true, inflight: 0, aborted: false, nextTimer: Number.POSITIVE_INFINITY }),
    ).toBe('again');
    expect(afterPass({ woken: true, inflight: 3, aborted: false, nextTimer: 5 })).toBe('again');
  });

  it('is done when nothing runs and nothing waits for a timer, or the run was interrupted', () => {
    expect(
      afterPass({ woken: false, inflight: 0, aborted: false, nextTimer: Number.POSITIVE_INFINITY }),
    ).toBe('done');
    expect(afterPass({ woken: false, inflight: 0, aborted: true, nextTimer: 5 })).toBe('done');
  });

  it('sleeps while stages run or a backoff ends later', () => {
    expect(
      afterPass({ woken: false, inflight: 2, aborted: false, nextTimer: Number.POSITIVE_INFINITY }),
    ).toBe('sleep');
    expect(afterPass({ woken: false, inflight: 0, aborted: false, nextTimer: 1_000 })).toBe(
      'sleep',
    );
  });
});
