import { describe, expect, it } from 'vitest';
import { DEFAULT_PARK_POLICY, type ParkSpent, planQuotaWait, type QuotaWaitInput } from './park.js';

const now = new Date('2026-12-01T10:00:00Z');
const fresh: ParkSpent = { parks: 0, waitedMs: 0 };
const plan = (
  candidates: string[],
  cooldowns: Record<string, string>,
  over: Partial<QuotaWaitInput> = {},
) =>
  planQuotaWait({
    decision: { candidates, used: [candidates[0]!] },
    cooldowns,
    now,
    spent: fresh,
    policy: DEFAULT_PARK_POLICY,
    ...over,
  });

describe('planQuotaWait', () => {
  it('parks until the earliest reset when every candidate is cooling down', () => {
    expect(
      plan(['a', 'b', 'c'], {
        a: '2026-12-01T12:00:00Z',
        b: '2026-12-01T10:30:00Z',
        c: '2026-12-01T11:00:00Z',
      }),
    ).toEqual({
      kind: 'park',
      target: 'b',
      until: '2026-12-01T10:30:00.000Z',
      resets: {
        a: '2026-12-01T12:00:00.000Z',
        b: '2026-12-01T10:30:00.000Z',
        c: '2026-12-01T11:00:00.000Z',
      },
    });
  });

  it('does not apply while a candidate is unused and free, or has no known reset', () => {
    expect(plan(['a', 'b'], { a: '2026-12-01T12:00:00Z' })).toBeUndefined();
    // b is unused and its old reset has passed: the failover takes it, not the park.
    expect(
      plan(['a', 'b'], { a: '2026-12-01T12:00:00Z', b: '2026-12-01T09:59:59Z' }),
    ).toBeUndefined();
    expect(
      plan(
        ['a', 'b'],
        { a: '2026-12-01T12:00:00Z' },
        { decision: { candidates: ['a', 'b'], used: ['a', 'b'] } },
      ),
    ).toBeUndefined();
    expect(plan([], {})).toBeUndefined();
  });

  it('every candidate used: goes at once to the one whose reset has passed, never waits on a later one', () => {
    // a said "2s" and its reset passed while b ran; b says "1h": back to a now.
    const wait = plan(
      ['a', 'b'],
      { a: '2026-12-01T09:59:58Z', b: '2026-12-01T11:00:00Z' },
      { decision: { candidates: ['a', 'b'], used: ['a', 'b'] } },
    );
    expect(wait).toMatchObject({ kind: 'move', target: 'a' });
    // With both in the future, the earlier one (a) is waited for, not b's.
    const later = plan(
      ['a', 'b'],
      { a: '2026-12-01T10:00:02Z', b: '2026-12-01T11:00:00Z' },
      { decision: { candidates: ['a', 'b'], used: ['a', 'b'] } },
    );
    expect(later).toMatchObject({ kind: 'park', target: 'a', until: '2026-12-01T10:00:02.000Z' });
  });

  it('breaks ties by catalog order', () => {
    const at = '2026-12-01T11:00:00Z';
    expect(plan(['b', 'a'], { a: at, b: at })).toMatchObject({ target: 'b' });
  });

  it('is bounded: the park cap and the longest total wait block the stage', () => {
    const resets = { a: '2026-12-01T10:00:05Z', b: '2026-12-01T10:00:09Z' };
    const policy = { maxParks: 3, maxWaitMs: 60_000 };
    expect(plan(['a', 'b'], resets, { policy, spent: { parks: 2, waitedMs: 0 } })).toMatchObject({
      kind: 'park',
    });
    const capped = plan(['a', 'b'], resets, { policy, spent: { parks: 3, waitedMs: 0 } });
    expect(capped).toMatchObject({ kind: 'over-budget' });
    expect(capped?.kind === 'over-budget' && capped.reason).toMatch(
      /3 consecutive parks .*maxParks 3/,
    );
    // 58 s waited already: 5 s more would pass the minute.
    const long = plan(['a', 'b'], resets, { policy, spent: { parks: 1, waitedMs: 58_000 } });
    expect(long).toMatchObject({ kind: 'over-budget', resets: { a: '2026-12-01T10:00:05.000Z' } });
    expect(long?.kind === 'over-budget' && long.reason).toMatch(/past park.maxWaitSeconds \(1m\)/);
    // A single reset beyond the whole budget blocks at once instead of waiting for nothing.
    expect(
      plan(['a'], { a: '2026-12-02T10:00:00Z' }, { policy: DEFAULT_PARK_POLICY }),
    ).toMatchObject({ kind: 'over-budget' });
  });
});
