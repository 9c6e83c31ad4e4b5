import { readdirSync, readFileSync } from 'node:fs';

/**
 * Identity of a running process that survives PID reuse: the PID plus a start token
 * (boot id + start time in clock ticks, from /proc). A PID whose start token differs is a
 * different process, even if the number is the same.
 */
export interface ProcessIdentity {
  pid: number;
  /** `<boot-id>:<starttime-ticks>`; undefined where /proc is unavailable. */
  startToken: string | undefined;
}

let bootId: string | undefined;
function readBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = 'unknown-boot';
    }
  }
  return bootId;
}

/** The start token of `pid`, or undefined when the process does not exist (or no /proc). */
export function readStartToken(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces or ')': split after
  // the last ')'. starttime is field 22 overall, i.e. index 19 of the fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTime = fields[19];
  return startTime ? startTokenOf(startTime) : undefined;
}

/** The start token from a starttime (field 22 of /proc/<pid>/stat) read by another process. */
export function startTokenOf(startTime: string): string {
  return `${readBootId()}:${startTime}`;
}

/** The identity of a process now. */
export function processIdentity(pid: number): ProcessIdentity {
  return { pid, startToken: readStartToken(pid) };
}

/** True when the process with that identity is still the same live process. */
export function isSameProcessAlive(identity: ProcessIdentity): boolean {
  const now = readStartToken(identity.pid);
  if (now === undefined) return false;
  if (readProcessState(identity.pid) === 'Z') return false;
  return identity.startToken === undefined || identity.startToken === now;
}

/** The one-letter state of a process (R, S, D, Z, T…), or undefined when it is gone. */
export function readProcessState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * True when the process environment holds `name=value` (the process marker, e.g.
 * `SWITCHYARD_ATTEMPT_ID=<id>`). Only readable for processes of the same user (or root).
 */
export function hasEnvironmentMarker(pid: number, name: string, value: string): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const needle = `${name}=${value}`;
  for (const entry of environ.toString('utf8').split('\0')) if (entry === needle) return true;
  return false;
}

/** PIDs of every live process whose environment carries the marker `name=value`. */
export function findProcessesWithMarker(name: string, value: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid > 0 && hasEnvironmentMarker(pid, name, value)) pids.push(pid);
  }
  return pids;
}
