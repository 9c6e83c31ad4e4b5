import { findProcessesWithMarkersInTurns, sharedPass } from '@switchyard/utils';

// Looking for an attempt's leftover processes reads the environment of processes on the
// machine (see terminateAttempt): attempts that end near each other share one pass over
// /proc. A request is answered by a scan that lists /proc after it was made (so it sees
// whatever was there when it asked): one scan runs at a time, and the requests made while it
// runs or in the few turns of the event loop after it share the next. Processes older than
// the earliest attempt of a scan are passed over (see `bornSinceMs` in utils' process
// identity); which processes belong to an attempt is still decided by its own marker.
interface Request {
  name: string;
  value: string;
  bornSinceMs: number | undefined;
}

// /proc entries looked at in one turn of the event loop: on a machine with thousands of
// processes, the agents of other attempts are still watched while a scan runs.
const ENTRIES_PER_TURN = 64;

const scan = sharedPass(scanFor, { gapTurns: 64 });

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
  return scan({ name, value, bornSinceMs }).then((found) => found.get(name)?.get(value) ?? []);
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

/** The PIDs of each requested marker value, by marker name: one scan per name asked for. */
async function scanFor(requests: readonly Request[]): Promise<Map<string, Map<string, number[]>>> {
  const found = new Map<string, Map<string, number[]>>();
  for (const name of new Set(requests.map((r) => r.name))) {
    const ofName = requests.filter((r) => r.name === name);
    const bornSinceMs = ofName.some((r) => r.bornSinceMs === undefined)
      ? undefined
      : Math.min(...ofName.map((r) => r.bornSinceMs as number));
    found.set(
      name,
      await findProcessesWithMarkersInTurns(
        name,
        new Set(ofName.map((r) => r.value)),
        bornSinceMs === undefined
          ? { entriesPerTurn: ENTRIES_PER_TURN }
          : { bornSinceMs, entriesPerTurn: ENTRIES_PER_TURN },
      ),
    );
  }
  return found;
}
