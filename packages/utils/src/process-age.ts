import { readFileSync } from 'node:fs';

/** Clock ticks per second in /proc (USER_HZ, fixed at 100 by the kernel's ABI on Linux). */
const USER_HZ = 100;

/**
 * How long ago (ms) the process with this start token started, measured on the kernel's
 * boot clock (`/proc/uptime` against the token's start time in ticks), so a wall-clock step
 * does not change it. Undefined when it cannot be known: no /proc, another boot, a token of
 * another form. A dispatcher that re-attaches to an agent counts its time limit from this.
 */
export function processAgeMs(startToken: string | undefined): number | undefined {
  if (startToken === undefined) return undefined;
  const colon = startToken.lastIndexOf(':');
  const ticks = Number(startToken.slice(colon + 1));
  if (colon < 0 || !Number.isFinite(ticks)) return undefined;
  let uptime: number;
  let bootId: string;
  try {
    uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
  if (startToken.slice(0, colon) !== bootId || !Number.isFinite(uptime)) return undefined;
  return Math.max(0, Math.round(uptime * 1000 - (ticks * 1000) / USER_HZ));
}
