import { describe, expect, it } from 'vitest';
import { classifyContextOf } from './time-zone.js';
import type { DispatchContext } from './types.js';

describe('classifyContextOf', () => {
  const endedAt = new Date('2026-01-02T03:04:05Z');

  it("gives the run's time zone when it has one", () => {
    const ctx = { options: { timeZone: 'Asia/Tokyo' } } as unknown as DispatchContext;
    expect(classifyContextOf(ctx, endedAt)).toEqual({ endedAt, timeZone: 'Asia/Tokyo' });
  });

  it("else the machine's, the one Intl reports", () => {
    const ctx = { options: {} } as unknown as DispatchContext;
    const context = classifyContextOf(ctx, endedAt);
    expect(context.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect({ ...context }).toEqual({ endedAt, timeZone: context.timeZone });
  });
});
