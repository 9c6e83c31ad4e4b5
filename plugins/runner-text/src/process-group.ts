import { readdirSync, readFileSync } from 'node:fs';
import { processesWithMarker } from './marker-scan.js';

/** Sends a signal to a whole process group; false when the group is empty. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** PIDs of live (non-zombie) processes in a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  // Fast path: an empty group answers ESRCH without a /proc scan.
  try {
    process.kill(-pgid, 0);
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is the state, fields[2] the process group id
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) members.push(pid);
    } catch {
      // the process exited while we looked
    }
  }
  return members;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The kernel's PF_EXITING: the process is in exit() already. */
const PF_EXITING = 0x4;

/** True when the process is gone or on its way out (a zombie, or in exit()): no signal needed. */
export function isExiting(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state, fields[6] the flags
    return fields[0] === 'Z' || fields[0] === 'X' || (Number(fields[6]) & PF_EXITING) !== 0;
  } catch {
    return true;
  }
}

/** Waits (up to `ms`) until each of `pids` is gone or a zombie, checking only those. */
async function untilExited(pids: readonly number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  const running = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z';
    } catch {
      return false;
    }
  };
  while (pids.some(running) && Date.now() < deadline) await sleep(5);
}

/**
 * Ends every process of the attempt: SIGTERM to the group (and to marker-carrying processes
 * that left it, when `sweepMarker`), SIGKILL to whatever still lives after `graceMs`.
 * Resolves when none is left. When every process found is already exiting (a zombie, or in
 * exit()), they are waited for, not signalled; an exiting process forks nothing, so none can
 * appear after them.
 * `contained`: a sandbox whose agent exited by itself. Its group then holds only bwrap's init
 * (PID 1 of the sandbox's PID namespace; a zombie until the system reaps it) and what the
 * agent left behind, and that init lives as long as anything is left in the namespace and
 * carries the attempt's marker: the marker check alone finds every leftover, through the
 * init, even one that left the group and cleared its environment. Ending the init (SIGKILL
 * reaches a namespace's init from outside) ends everything in the namespace. So no group scan.
 */
export async function terminateAttempt(opts: {
  pgid: number;
  graceMs: number;
  marker?: { name: string; value: string };
  /** Every process carrying the marker started at or after this wall-clock time (see
   * `attemptBornSinceMs`): older ones are not looked at. */
  bornSinceMs?: number;
  contained?: boolean;
}): Promise<void> {
  const survivors = async () => {
    const pids = new Set(opts.contained ? [] : groupMembers(opts.pgid));
    if (opts.marker)
      for (const pid of await processesWithMarker(
        opts.marker.name,
        opts.marker.value,
        opts.bornSinceMs,
      ))
        pids.add(pid);
    pids.delete(process.pid);
    return [...pids];
  };
  let left = await survivors();
  if (left.length === 0) return;
  if (left.every(isExiting)) {
    await untilExited(left, Math.max(opts.graceMs, 1000));
    return;
  }
  signalGroup(opts.pgid, 'SIGTERM');
  for (const pid of left) killQuietly(pid, 'SIGTERM');
  // the grace is measured on the monotonic clock: a wall-clock step neither skips nor stretches it
  const deadline = performance.now() + opts.graceMs;
  while (performance.now() < deadline) {
    await sleep(Math.min(50, opts.graceMs));
    left = await survivors();
    if (left.length === 0) return;
  }
  signalGroup(opts.pgid, 'SIGKILL');
  for (const pid of left) killQuietly(pid, 'SIGKILL');
  // Up to 2 s for the killed to be gone, on the monotonic clock: each look waits for a shared
  // scan of /proc, so a count of looks would stretch with the dispatcher's load.
  const killDeadline = performance.now() + KILLED_WAIT_MS;
  while (performance.now() < killDeadline && (await survivors()).length > 0) await sleep(20);
}

const KILLED_WAIT_MS = 2_000;

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
