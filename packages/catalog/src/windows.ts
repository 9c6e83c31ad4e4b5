import { lazyRequire } from '@switchyard/utils';
import type * as Luxon from 'luxon';

// Only catalogs with time windows need luxon.
const luxon = lazyRequire<typeof Luxon>('luxon', import.meta.url);

/** The parts of a time window the coverage rules need. */
export interface WindowSpec {
  timezone: string;
  /** `HH:MM`, inclusive. */
  start: string;
  /** `HH:MM`, exclusive; `end <= start` wraps past midnight; `end === start` is the whole day. */
  end: string;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MINUTE = 60_000;
const DAY_MINUTES = 1440;

/** Minutes after midnight of an `HH:MM` string, or undefined when malformed. */
export function parseClock(value: string): number | undefined {
  const m = HH_MM.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** True when `zone` is a valid IANA time zone name. */
export function isValidTimezone(zone: string): boolean {
  return luxon().IANAZone.isValidZone(zone);
}

/** True when local minute-of-day `minute` falls in [start, end), wrapping past midnight. */
export function clockInWindow(minute: number, start: number, end: number): boolean {
  if (start === end) return true;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/** Local minute of day of instant `ms` in `zone` (luxon, DST-aware). */
export function localMinute(ms: number, zone: string): number {
  const local = luxon().DateTime.fromMillis(ms, { zone });
  return local.hour * 60 + local.minute;
}

/** True when the window is active at `at`. */
export function windowMatches(window: WindowSpec, at: Date): boolean {
  const start = parseClock(window.start) ?? 0;
  const end = parseClock(window.end) ?? 0;
  return clockInWindow(localMinute(at.getTime(), window.timezone), start, end);
}

/** A coverage fault: the first instant no window, or more than one, is active. */
export interface WindowFault {
  kind: 'gap' | 'overlap';
  /** ISO-8601 UTC instant. */
  at: string;
  /** Indexes of the windows active at that instant (empty for a gap). */
  active: number[];
}

type Segments = { start: number; offset: number }[];
const segmentCache = new Map<string, Segments>();

/** Offset segments, cached: a catalog's routes share a few zones and the same year. */
function cachedSegments(zone: string, from: number, to: number): Segments {
  const key = `${zone}|${from}|${to}`;
  let segments = segmentCache.get(key);
  if (!segments) {
    if (segmentCache.size > 256) segmentCache.clear();
    segments = offsetSegments(zone, from, to);
    segmentCache.set(key, segments);
  }
  return segments;
}

/** Offset (minutes) segments of `zone` over [from, to): offset is constant on each. */
function offsetSegments(zone: string, from: number, to: number): Segments {
  const { DateTime } = luxon();
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone }).offset;
  const segments = [{ start: from, offset: offsetAt(from) }];
  const step = 6 * 60 * MINUTE;
  for (let t = from; t < to; t += step) {
    const next = Math.min(t + step, to);
    const before = offsetAt(t);
    if (offsetAt(next) === before) continue;
    // Binary search the first minute with the new offset.
    let lo = t;
    let hi = next;
    while (hi - lo > MINUTE) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
      if (offsetAt(mid) === before) lo = mid;
      else hi = mid;
    }
    segments.push({ start: hi, offset: offsetAt(hi) });
  }
  return segments;
}

/**
 * Proves that exactly one window is active at every instant of [from, to), or returns the
 * first instant where that fails. Which windows are active can only change where some
 * window's local clock crosses its start or end, or where a zone's UTC offset changes, so
 * only those boundary instants are evaluated (a few thousand per route for a year, instead
 * of half a million minutes).
 */
export function findWindowFault(
  windows: readonly WindowSpec[],
  from: Date,
  to: Date,
): WindowFault | undefined {
  const start = Math.floor(from.getTime() / MINUTE) * MINUTE;
  const end = to.getTime();
  const zones = [...new Set(windows.map((w) => w.timezone))];
  const segmentsByZone = new Map(zones.map((z) => [z, cachedSegments(z, start, end)]));
  const bounds = windows.map((w) => [parseClock(w.start) ?? 0, parseClock(w.end) ?? 0] as const);

  const instants = new Set<number>([start]);
  for (const [zone, segments] of segmentsByZone) {
    const clocks = new Set<number>();
    windows.forEach((w, i) => {
      if (w.timezone === zone) for (const c of bounds[i] ?? []) clocks.add(c);
    });
    segments.forEach((segment, i) => {
      const segEnd = segments[i + 1]?.start ?? end;
      instants.add(segment.start);
      for (const clock of clocks) {
        // First instant >= segment.start whose local minute-of-day equals `clock`.
        const localMin = Math.floor(segment.start / MINUTE) + segment.offset;
        const delta = (((clock - localMin) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
        for (let t = segment.start + delta * MINUTE; t < segEnd; t += DAY_MINUTES * MINUTE) {
          instants.add(t);
        }
      }
    });
  }

  // Local clocks come from the offset segments (binary search), not from luxon per instant.
  const clockAt = (zone: string, t: number): number => {
    const segments = segmentsByZone.get(zone) ?? [];
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((segments[mid]?.start ?? 0) <= t) lo = mid;
      else hi = mid - 1;
    }
    const offset = segments[lo]?.offset ?? 0;
    return (((Math.floor(t / MINUTE) + offset) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
  };
  const sorted = [...instants].filter((t) => t >= start && t < end).sort((a, b) => a - b);
  for (const t of sorted) {
    const active: number[] = [];
    windows.forEach((w, i) => {
      const [s, e] = bounds[i] ?? [0, 0];
      if (clockInWindow(clockAt(w.timezone, t), s, e)) active.push(i);
    });
    if (active.length !== 1) {
      return {
        kind: active.length === 0 ? 'gap' : 'overlap',
        at: new Date(t).toISOString(),
        active,
      };
    }
  }
  return undefined;
}
