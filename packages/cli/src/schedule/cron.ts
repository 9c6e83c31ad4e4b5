import { SwitchyardError } from '@switchyard/core';
import { Cron } from 'croner';

/** Five fields, or six with a leading seconds field. */
const CRON_OPTIONS = { mode: '5-or-6-parts' } as const;

/** A paused croner job for the pattern (throws SY_USAGE on a bad cron or time zone). */
export function parseCron(cron: string, timezone?: string): Cron {
  if (timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: timezone });
    } catch {
      throw new SwitchyardError('SY_USAGE', `Unknown time zone "${timezone}".`, {
        path: '--timezone',
        hint: 'Use an IANA name such as Europe/Berlin, America/New_York or UTC.',
      });
    }
  }
  try {
    return new Cron(cron, {
      ...CRON_OPTIONS,
      paused: true,
      ...(timezone ? { timezone } : {}),
    });
  } catch (error) {
    throw new SwitchyardError(
      'SY_USAGE',
      `Invalid cron "${cron}": ${(error as Error).message.replace(/^CronPattern: /, '')}`,
      {
        path: '--cron',
        cause: error,
        hint: 'Five fields "min hour day month weekday" (e.g. "0 2 * * *"), or six with seconds first ("*/30 * * * * *").',
      },
    );
  }
}

/** Fire times of the cron strictly after `since` and at or before `until` (at most `limit`). */
export function firesBetween(cron: Cron, since: Date, until: Date, limit = 1000): Date[] {
  const fires: Date[] = [];
  let next = cron.nextRun(since);
  while (next && next.getTime() <= until.getTime() && fires.length < limit) {
    fires.push(next);
    next = cron.nextRun(next);
  }
  return fires;
}
