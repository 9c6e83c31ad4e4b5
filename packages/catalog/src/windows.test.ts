import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectCandidates } from './select.js';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';
import {
  clockInWindow,
  findWindowFault,
  localMinute,
  parseClock,
  type WindowSpec,
  windowMatches,
} from './windows.js';

const now = new Date('2026-12-01T00:00:00Z');
const yearLater = new Date('2027-12-02T00:00:00Z');
const w = (timezone: string, start: string, end: string): WindowSpec => ({ timezone, start, end });

describe('window matching', () => {
  it('is start-inclusive, end-exclusive, and wraps past midnight', () => {
    const night = w('UTC', '22:00', '06:00');
    expect(windowMatches(night, new Date('2027-01-01T22:00:00Z'))).toBe(true);
    expect(windowMatches(night, new Date('2027-01-01T05:59:00Z'))).toBe(true);
    expect(windowMatches(night, new Date('2027-01-01T06:00:00Z'))).toBe(false);
    expect(windowMatches(night, new Date('2027-01-01T21:59:00Z'))).toBe(false);
    expect(windowMatches(w('UTC', '07:00', '07:00'), new Date('2027-01-01T03:00:00Z'))).toBe(true);
  });

  it('reads the local clock of the window time zone, DST included', () => {
    const nine = w('America/New_York', '09:00', '17:00');
    expect(windowMatches(nine, new Date('2027-01-15T14:00:00Z'))).toBe(true); // 09:00 EST
    expect(windowMatches(nine, new Date('2027-07-15T13:00:00Z'))).toBe(true); // 09:00 EDT
    expect(windowMatches(nine, new Date('2027-07-15T21:00:00Z'))).toBe(false); // 17:00 EDT
  });

  it('parses only HH:MM clocks', () => {
    expect(parseClock('00:00')).toBe(0);
    expect(parseClock('23:59')).toBe(1439);
    expect(parseClock('24:00')).toBeUndefined();
    expect(parseClock('9:00')).toBeUndefined();
  });
});

describe('findWindowFault', () => {
  it('accepts a day split into two windows, one wrapping midnight', () => {
    const windows = [w('Europe/Berlin', '08:00', '20:00'), w('Europe/Berlin', '20:00', '08:00')];
    expect(findWindowFault(windows, now, yearLater)).toBeUndefined();
  });

  it('accepts windows split at a DST-affected local time (the clock still partitions the day)', () => {
    const windows = [
      w('America/New_York', '01:30', '02:30'),
      w('America/New_York', '02:30', '01:30'),
    ];
    expect(findWindowFault(windows, now, yearLater)).toBeUndefined();
  });

  it('names the first uncovered instant', () => {
    const windows = [w('UTC', '08:00', '20:00'), w('UTC', '20:00', '07:30')];
    expect(findWindowFault(windows, now, yearLater)).toEqual({
      kind: 'gap',
      at: '2026-12-01T07:30:00.000Z',
      active: [],
    });
  });

  it('names the first overlapping instant and the windows involved', () => {
    const windows = [w('UTC', '08:00', '20:00'), w('UTC', '19:00', '08:00')];
    expect(findWindowFault(windows, now, yearLater)).toEqual({
      kind: 'overlap',
      at: '2026-12-01T19:00:00.000Z',
      active: [0, 1],
    });
  });

  it('finds the overlap a DST change creates between windows in different zones', () => {
    // In winter Berlin is UTC+1: 13:00 Berlin = 12:00 UTC, a perfect split. From the
    // last Sunday of March (UTC+2) 13:00 Berlin is 11:00 UTC and both windows are active.
    const windows = [w('UTC', '00:00', '12:00'), w('Europe/Berlin', '13:00', '01:00')];
    expect(findWindowFault(windows, now, yearLater)).toEqual({
      kind: 'overlap',
      at: '2027-03-28T11:00:00.000Z',
      active: [0, 1],
    });
  });

  it('finds the gap a DST change creates', () => {
    // In summer 08:00–20:00 EDT is 12:00–00:00 UTC, an exact complement. After the change
    // back to EST on 2027-11-07 it is 13:00–01:00 UTC: 12:00 UTC that day is uncovered.
    const windows = [w('UTC', '00:00', '12:00'), w('America/New_York', '08:00', '20:00')];
    expect(findWindowFault(windows, new Date('2027-06-01T00:00:00Z'), yearLater)).toEqual({
      kind: 'gap',
      at: '2027-11-07T12:00:00.000Z',
      active: [],
    });
  });

  it('agrees with a minute-by-minute scan on random windows (property)', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
    ];
    const clock = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const spec = fc.record({ timezone: fc.constantFrom(...zones), start: clock, end: clock });
    // Two days around the European spring DST change, at 15-minute resolution of the scan
    // (all boundaries are multiples of 15 minutes, Lord Howe's 30-minute DST included).
    const from = new Date('2027-03-27T12:00:00Z');
    const to = new Date('2027-03-29T12:00:00Z');
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 3 }), (windows) => {
        let expected: { kind: string; at: string } | undefined;
        for (let t = from.getTime(); t < to.getTime() && !expected; t += 15 * 60_000) {
          const active = windows.filter((x) =>
            clockInWindow(localMinute(t, x.timezone), parseClock(x.start)!, parseClock(x.end)!),
          ).length;
          if (active !== 1)
            expected = { kind: active ? 'overlap' : 'gap', at: new Date(t).toISOString() };
        }
        const fault = findWindowFault(windows, from, to);
        expect(fault && { kind: fault.kind, at: fault.at }).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});

describe('windowed routes in a catalog', () => {
  const windowed = () => {
    const raw = validCatalog();
    raw.routes.worker['cloud-G05'] = {
      windows: [
        { timezone: 'America/New_York', start: '09:00', end: '18:00', candidates: ['cloud-a'] },
        {
          timezone: 'America/New_York',
          start: '18:00',
          end: '09:00',
          candidates: ['cloud-b', 'cloud-a'],
        },
      ],
    };
    return raw;
  };

  it('selects exactly the active window and reports which one', () => {
    const { catalog } = validateCatalog(windowed(), { now, checkExecutables: false });
    expect(
      selectCandidates(catalog!, 'worker', 'cloud-G05', new Date('2027-07-01T14:00:00Z')),
    ).toEqual({
      candidates: ['cloud-a'],
      window: { index: 0, timezone: 'America/New_York', start: '09:00', end: '18:00' },
    });
    expect(
      selectCandidates(catalog!, 'worker', 'cloud-G05', new Date('2027-07-01T03:00:00Z'))
        .candidates,
    ).toEqual(['cloud-b', 'cloud-a']);
    expect(selectCandidates(catalog!, 'review', 'cloud-G05', now)).toEqual({
      candidates: ['cloud-a', 'cloud-b'],
    });
  });

  it('rejects a windowed route with a gap, naming the route and the instant', () => {
    const raw = windowed();
    raw.routes.worker['cloud-G05'].windows[1].end = '08:00';
    const { problems } = validateCatalog(raw, { now, checkExecutables: false });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe('routes.worker.cloud-G05.windows');
    expect(problems[0]!.message).toBe(
      'route worker.cloud-G05: no window is active at 2026-12-01T13:00:00.000Z',
    );
  });

  // Speed is measured by test/bench/catalog-windows.mjs, not asserted here.
  it('validates a catalog whose 40 routes all use windows', () => {
    const raw = validCatalog();
    for (const stage of ['worker', 'review'])
      for (const id of Object.keys(raw.routes[stage]))
        raw.routes[stage][id] = {
          windows: [
            { timezone: 'Europe/Berlin', start: '07:00', end: '19:30', candidates: ['cloud-a'] },
            { timezone: 'Europe/Berlin', start: '19:30', end: '07:00', candidates: ['cloud-b'] },
          ],
        };
    const { catalog, problems } = validateCatalog(raw, { now, checkExecutables: false });
    expect(problems).toEqual([]);
    expect(
      selectCandidates(catalog!, 'review', 'local-G07', new Date('2027-06-01T18:00:00Z')),
    ).toMatchObject({
      candidates: ['cloud-b'],
      window: { index: 1 },
    });
  });
});
