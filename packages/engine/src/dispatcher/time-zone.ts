import type { ClassifyContext } from '@switchyard/core';
import type { DispatchContext } from './types.js';

let machineZone: string | undefined;

/**
 * The time zone an agent's reset time without one is read in: the run's, else the machine's,
 * read once per process (building an `Intl.DateTimeFormat` for it costs up to half a
 * millisecond, which every attempt's classification paid).
 */
function runTimeZone(ctx: DispatchContext): string {
  if (ctx.options.timeZone !== undefined) return ctx.options.timeZone;
  machineZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  return machineZone;
}

/**
 * A classifier's context, its time zone read when a classifier reads it: only a reset time
 * without a zone needs it, and the first `Intl` call of a process loads the time-zone data
 * (about 20 ms of a run's CPU otherwise spent on its first attempt's classification).
 */
export function classifyContextOf(ctx: DispatchContext, endedAt: Date): ClassifyContext {
  return {
    endedAt,
    get timeZone() {
      return runTimeZone(ctx);
    },
  };
}
