import { findProcessesWithMarkers } from '@switchyard/utils';

// Looking for an attempt's leftover processes reads the environment of processes on the
// machine (see terminateAttempt): attempts that end together share one pass over /proc.
// Asked in the same turn of the event loop, they are answered by one scan that starts after
// every request (so it sees whatever was there when each one asked). Processes older than
// the earliest attempt asking are passed over (see `bornSinceMs` in core's process identity).
interface Request {
  resolve: (pids: number[]) => void;
  bornSinceMs: number | undefined;
}
const waiting = new Map<string, Map<string, Request[]>>();
let scheduled = false;

/**
 * PIDs of live processes whose environment carries `name=value`, from the next shared scan.
 * `bornSinceMs`: a wall-clock time before which no process carrying it can have started
 * (see {@link attemptBornSinceMs}); without it, every process is looked at.
 */
export function processesWithMarker(
  name: string,
  value: string,
  bornSinceMs?: number,
): Promise<number[]> {
  return new Promise((resolve) => {
    const byValue = waiting.get(name) ?? new Map<string, Request[]>();
    waiting.set(name, byValue);
    byValue.set(value, [...(byValue.get(value) ?? []), { resolve, bornSinceMs }]);
    if (scheduled) return;
    scheduled = true;
    setImmediate(scan);
  });
}

/**
 * The wall-clock time an attempt started (`startedAtWallMs`, taken before its agent was
 * spawned), moved back by however far the wall clock stepped back since: measured on the
 * monotonic clock, so a process the agent started after a backward step still counts as
 * born since.
 */
export function attemptBornSinceMs(startedAtWallMs: number, startedAtMonotonicMs: number): number {
  return Math.min(startedAtWallMs, Date.now() - (performance.now() - startedAtMonotonicMs));
}

function scan(): void {
  scheduled = false;
  const batch = [...waiting];
  waiting.clear();
  for (const [name, byValue] of batch) {
    const requests = [...byValue.values()].flat();
    const bornSinceMs = requests.some((r) => r.bornSinceMs === undefined)
      ? undefined
      : Math.min(...requests.map((r) => r.bornSinceMs as number));
    const found = findProcessesWithMarkers(
      name,
      new Set(byValue.keys()),
      bornSinceMs === undefined ? {} : { bornSinceMs },
    );
    for (const [value, pending] of byValue)
      for (const request of pending) request.resolve(found.get(value) ?? []);
  }
}
