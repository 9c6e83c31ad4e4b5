import type { DispatchContext } from './types.js';

let machineZone: string | undefined;

/**
 * The time zone an agent's reset time without one is read in: the run's, else the machine's,
 * read once per process (building an `Intl.DateTimeFormat` for it costs up to half a
 * millisecond, which every attempt's classification paid).
 */
export function runTimeZone(ctx: DispatchContext): string {
  if (ctx.options.timeZone !== undefined) return ctx.options.timeZone;
  machineZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  return machineZone;
}
