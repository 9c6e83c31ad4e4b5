import { describe, expect, it } from 'vitest';
import { planPark } from './park.js';

const now = new Date('2026-12-01T10:00:00Z');

describe('planPark', () => {
  it('parks until the earliest reset when every candidate is cooling down', () => {
    const plan = planPark(
      { candidates: ['a', 'b', 'c'] },
      { a: '2026-12-01T12:00:00Z', b: '2026-12-01T10:30:00Z', c: '2026-12-01T11:00:00Z' },
      now,
    );
    expect(plan).toEqual({
      target: 'b',
      until: '2026-12-01T10:30:00.000Z',
      resets: {
        a: '2026-12-01T12:00:00.000Z',
        b: '2026-12-01T10:30:00.000Z',
        c: '2026-12-01T11:00:00.000Z',
      },
    });
  });

  it('does not park while one candidate has no cooldown or one that already ended', () => {
    expect(
      planPark({ candidates: ['a', 'b'] }, { a: '2026-12-01T12:00:00Z' }, now),
    ).toBeUndefined();
    expect(
      planPark(
        { candidates: ['a', 'b'] },
        { a: '2026-12-01T12:00:00Z', b: '2026-12-01T09:59:59Z' },
        now,
      ),
    ).toBeUndefined();
    expect(planPark({ candidates: [] }, {}, now)).toBeUndefined();
  });

  it('breaks ties by catalog order', () => {
    const at = '2026-12-01T11:00:00Z';
    expect(planPark({ candidates: ['b', 'a'] }, { a: at, b: at }, now)?.target).toBe('b');
  });
});
