import { describe, expect, it } from 'vitest';
import { findRetryAfter, parseRetryAfter } from './retry-after.js';

const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };

describe('parseRetryAfter', () => {
  it.each([
    ['429 Too Many Requests, retry-after: 30', '2026-11-30T12:00:30.000Z'],
    ['{"retry_after": 12}', '2026-11-30T12:00:12.000Z'],
    ['"retryDelay": "43s"', '2026-11-30T12:00:43.000Z'],
    ['Please retry in 12.5s.', '2026-11-30T12:00:12.500Z'],
    ['Rate limited. Try again in 5m', '2026-11-30T12:05:00.000Z'],
    ['try again in 1 day 2 hours 3 minutes', '2026-12-01T14:03:00.000Z'],
    ['Claude AI usage limit reached|1764504000', '2025-11-30T12:00:00.000Z'],
    ['5-hour limit reached ∙ resets 2:30pm', '2026-11-30T14:30:00.000Z'],
    ['limit resets 9am', '2026-12-01T09:00:00.000Z'],
    ['Your limit will reset at 3pm (America/New_York)', '2026-11-30T20:00:00.000Z'],
    ['resets at 11:15', '2026-12-01T11:15:00.000Z'],
  ])('%s', (text, iso) => {
    expect(parseRetryAfter(text, ctx)).toBe(iso);
  });

  it('reads zone-less wall-clock times in the context zone', () => {
    const berlin = { endedAt: ctx.endedAt, timeZone: 'Europe/Berlin' };
    expect(parseRetryAfter('resets 2:30pm', berlin)).toBe('2026-11-30T13:30:00.000Z');
  });

  it.each(['it resets 5 times', 'no time here', 'resets 25:00', 'resets 13pm'])(
    'finds nothing in %s',
    (text) => {
      expect(parseRetryAfter(text, ctx)).toBeUndefined();
    },
  );

  it('takes the first line that names a time', () => {
    expect(findRetryAfter(['API Error: 429', 'retry-after: 2'], ctx)).toBe(
      '2026-11-30T12:00:02.000Z',
    );
  });
});
