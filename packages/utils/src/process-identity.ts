import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
} from 'node:fs';

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

// One buffer for every /proc/<pid>/environ read (grown when an environment is larger): the
// scan after each attempt reads one per process on the machine, so it allocates nothing.
let environBuffer = Buffer.allocUnsafe(64 * 1024);

/** The bytes of /proc/<pid>/environ (a view of the shared buffer), or undefined when unreadable. */
function readEnviron(pid: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === environBuffer.length) {
        const larger = Buffer.allocUnsafe(environBuffer.length * 2);
        environBuffer.copy(larger);
        environBuffer = larger;
      }
      const room = environBuffer.length - length;
      const read = readSync(fd, environBuffer, length, room, null);
      length += read;
      // The kernel fills a read of environ up to its size or the end of the environment, so
      // a short read is the end: no second read to learn it (one syscall fewer per process).
      if (read < room) return environBuffer.subarray(0, length);
    }
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  } finally {
    closeSync(fd);
  }
}

/** True when `environ` (NUL-separated entries) holds the entry `needle` exactly. */
function holdsEntry(environ: Buffer, needle: Buffer): boolean {
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0))
      return true;
  }
  return false;
}

/**
 * True when the process environment holds `name=value` (the process marker, e.g.
 * `SWITCHYARD_ATTEMPT_ID=<id>`). Only readable for processes of the same user (or root).
 */
export function hasEnvironmentMarker(pid: number, name: string, value: string): boolean {
  const environ = readEnviron(pid);
  return environ !== undefined && holdsEntry(environ, Buffer.from(`${name}=${value}`));
}

/** PIDs of every live process whose environment carries the marker `name=value`. */
export function findProcessesWithMarker(name: string, value: string): number[] {
  return findProcessesWithMarkers(name, new Set([value])).get(value) ?? [];
}

/** Options of {@link findProcessesWithMarkers}. */
export interface MarkerScanOptions {
  /**
   * Wall-clock time (ms since the epoch) at or before which every process looked for was
   * started, e.g. taken just before the attempt's agent was spawned: a process the kernel
   * knew before it (its `/proc/<pid>` entry is older) cannot descend from that agent, so its
   * environment is not read. Without it, every process's environment is read.
   */
  bornSinceMs?: number;
  /** The names in /proc (its listing, by default): a test's stand-in for a listing taken earlier. */
  listProc?: () => string[];
}

// A process in a listing that forks and ends before its entry is looked at leaves a child the
// listing never had (a tool daemonizing as its attempt ends: fork, setsid, exit). So after a
// listing in which an entry vanished before its look, /proc is listed again and its new names
// looked at, until none vanished. Each round looks only at names no earlier round listed; the
// bound stops a machine whose processes churn without end from holding a scan.
const MAX_PROC_LISTINGS = 8;

/**
 * For each of `values`, the PIDs of live processes whose environment carries `name=<value>`:
 * one pass over /proc for all of them (each environment read once), for callers that look
 * for the markers of several attempts at once. Values without a process are left out.
 */
export function findProcessesWithMarkers(
  name: string,
  values: ReadonlySet<string>,
  options: MarkerScanOptions = {},
): Map<string, number[]> {
  const scan = markerScan(name, values, options);
  if (!scan) return new Map();
  for (let entries = scan.entries; entries.length > 0; entries = scan.relist()) {
    let vanished = false;
    for (const entry of entries) if (scan.look(entry) === 'gone') vanished = true;
    if (!vanished) break;
  }
  return scan.found;
}

/**
 * {@link findProcessesWithMarkers} spread over turns of the event loop: the listing of /proc
 * is taken when it is called (so it answers for whatever ran then), and the entries are
 * looked at `entriesPerTurn` at a time, so that callers can tell a scan still under way from
 * one that has not started.
 */
export async function findProcessesWithMarkersInTurns(
  name: string,
  values: ReadonlySet<string>,
  options: MarkerScanOptions & { entriesPerTurn: number },
): Promise<Map<string, number[]>> {
  const scan = markerScan(name, values, options);
  if (!scan) return new Map();
  let sinceYield = 0;
  for (let entries = scan.entries; entries.length > 0; entries = scan.relist()) {
    let vanished = false;
    for (const entry of entries) {
      if (++sinceYield > options.entriesPerTurn) {
        sinceYield = 1;
        await new Promise<void>((done) => setImmediate(done));
      }
      if (scan.look(entry) === 'gone') vanished = true;
    }
    if (!vanished) break;
  }
  return scan.found;
}

/** A look at one /proc entry: `'gone'` when its process ended before it could be read. */
type EntryLook = 'looked' | 'gone';

/**
 * The listing of /proc, the look at one of its entries and the next listing's new names, of
 * one scan for `values`.
 */
function markerScan(
  name: string,
  values: ReadonlySet<string>,
  options: MarkerScanOptions,
):
  | {
      entries: string[];
      look: (entry: string) => EntryLook;
      relist: () => string[];
      found: Map<string, number[]>;
    }
  | undefined {
  const found = new Map<string, number[]>();
  if (values.size === 0) return undefined;
  const list = options.listProc ?? (() => readdirSync('/proc'));
  let entries: string[];
  try {
    entries = list();
  } catch {
    return undefined;
  }
  const listed = new Set(entries);
  let listings = 1;
  const relist = (): string[] => {
    if (listings++ >= MAX_PROC_LISTINGS) return [];
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return [];
    }
    const fresh = names.filter((n) => !listed.has(n));
    for (const n of fresh) listed.add(n);
    return fresh;
  };
  const key = Buffer.from(`${name}=`);
  const bornSince =
    options.bornSinceMs !== undefined && procEntryTimesUsable()
      ? options.bornSinceMs - PROC_CLOCK_SLACK_MS
      : undefined;
  const lookAtProcEntry = (entry: string): EntryLook => {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) return 'looked';
    if (bornSince !== undefined && procEntryOlderThan(entry, bornSince)) return 'looked';
    const environ = readEnviron(pid);
    if (environ === undefined) return existsSync(`/proc/${entry}`) ? 'looked' : 'gone';
    for (const value of entryValues(environ, key)) {
      if (!values.has(value)) continue;
      const pids = found.get(value) ?? [];
      if (!pids.includes(pid)) pids.push(pid);
      found.set(value, pids);
    }
    return 'looked';
  };
  return { entries, look: lookAtProcEntry, relist, found };
}

// Why the age of a /proc/<pid> entry tells a process born later from one born earlier, at the
// cost of one lstat instead of reading its environment (open, read, close): the kernel makes
// the entry's inode when the entry is first looked up (or listed) and stamps it with the time
// then; a process that did not exist yet cannot have had one; and an entry whose process ended
// is dropped, so a reused PID gets a new one. So an entry older than the attempt's start is a
// process that was running before the agent, never one of its descendants. The stamp comes
// from the kernel's coarse clock (a tick behind at most): the slack covers that.
const PROC_CLOCK_SLACK_MS = 1000;

function procEntryOlderThan(entry: string, wallMs: number): boolean {
  const stat = lstatSync(`/proc/${entry}`, { throwIfNoEntry: false });
  return stat !== undefined && stat.ctimeMs < wallMs;
}

let entryTimesUsable: boolean | undefined;
/**
 * True when this system's /proc stamps a process's entry as described above: this process's
 * own entry cannot be older than the process. A /proc that reports a fixed time (0, the boot
 * time) fails, and every environment is read as before.
 */
function procEntryTimesUsable(): boolean {
  if (entryTimesUsable === undefined) {
    const stat = lstatSync(`/proc/${process.pid}`, { throwIfNoEntry: false });
    entryTimesUsable =
      stat !== undefined && stat.ctimeMs >= performance.timeOrigin - PROC_CLOCK_SLACK_MS;
  }
  return entryTimesUsable;
}

/** The values of every entry of `environ` that starts with `key` (`NAME=`). */
function* entryValues(environ: Buffer, key: Buffer): Generator<string> {
  for (let at = environ.indexOf(key); at >= 0; at = environ.indexOf(key, at + 1)) {
    if (at > 0 && environ[at - 1] !== 0) continue;
    const end = environ.indexOf(0, at + key.length);
    yield environ.toString('utf8', at + key.length, end < 0 ? environ.length : end);
  }
}
