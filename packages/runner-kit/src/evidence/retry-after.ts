import type { ClassifyContext } from '@switchyard/core';
import { DateTime, IANAZone } from 'luxon';

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
const DURATION_PART =
  /(\d+(?:\.\d+)?)\s*(ms|milliseconds?|d|days?|h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)\b/gi;
const RELATIVE =
  /(?:try again|retry|retrying|reset|resets|available again)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i;
const HEADER = /retry[-_ ]?after(?:[-_ ]?(ms|seconds))?["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i;
const RETRY_DELAY = /retry[-_ ]?delay["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)(ms|s)\b/i;
const EPOCH = /limit reached\|(\d{10})\b/i;
const WALL_CLOCK =
  /(?:resets?|reset at|resets at|try again at|available at)\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i;

function durationMs(text: string): number {
  let total = 0;
  for (const m of text.matchAll(DURATION_PART)) {
    const unit = m[2]!.toLowerCase();
    const ms = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : UNIT_MS[unit[0]!]!;
    total += Number(m[1]) * ms;
  }
  return total;
}

function wallClock(m: RegExpMatchArray, context: ClassifyContext): DateTime | undefined {
  const [, hh, mm, ampm, zoneName] = m;
  if (mm === undefined && ampm === undefined) return undefined; // "resets 5 times" is no time
  let hour = Number(hh);
  const minute = mm === undefined ? 0 : Number(mm);
  if (ampm !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (/^p/i.test(ampm) ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const zone =
    zoneName !== undefined && IANAZone.isValidZone(zoneName) ? zoneName : context.timeZone;
  const ended = DateTime.fromJSDate(context.endedAt, { zone });
  if (!ended.isValid) return undefined;
  let at = ended.set({ hour, minute, second: 0, millisecond: 0 });
  if (at <= ended) at = at.plus({ days: 1 });
  return at;
}

/**
 * The instant a provider limit lifts, when an evidence line names it: an HTTP
 * `retry-after`, a `retryDelay`, "try again in 5m", "resets 2:30pm (Europe/Berlin)" or an
 * epoch after "limit reached|". Relative times count from `context.endedAt`; wall-clock times
 * without a zone are read in `context.timeZone` and mean the next such time. Returns ISO-8601
 * in UTC, or undefined.
 */
export function parseRetryAfter(text: string, context: ClassifyContext): string | undefined {
  const ended = DateTime.fromJSDate(context.endedAt, { zone: 'utc' });
  const epoch = EPOCH.exec(text);
  if (epoch) return DateTime.fromSeconds(Number(epoch[1]), { zone: 'utc' }).toISO() ?? undefined;
  const relative = RELATIVE.exec(text);
  if (relative) {
    const ms = durationMs(relative[1]!);
    if (ms > 0) return ended.plus({ milliseconds: Math.round(ms) }).toISO() ?? undefined;
  }
  const header = HEADER.exec(text);
  if (header) {
    const ms = Number(header[2]) * (header[1]?.toLowerCase() === 'ms' ? 1 : 1000);
    return ended.plus({ milliseconds: Math.round(ms) }).toISO() ?? undefined;
  }
  const delay = RETRY_DELAY.exec(text);
  if (delay) {
    const ms = Number(delay[1]) * (delay[2] === 'ms' ? 1 : 1000);
    return ended.plus({ milliseconds: Math.round(ms) }).toISO() ?? undefined;
  }
  const clock = WALL_CLOCK.exec(text);
  if (clock) return wallClock(clock, context)?.toUTC().toISO() ?? undefined;
  return undefined;
}

/** The first reset instant named by any of the lines. */
export function findRetryAfter(
  lines: readonly string[],
  context: ClassifyContext,
): string | undefined {
  for (const line of lines) {
    const at = parseRetryAfter(line, context);
    if (at !== undefined) return at;
  }
  return undefined;
}
