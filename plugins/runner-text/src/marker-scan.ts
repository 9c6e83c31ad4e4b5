import { findProcessesWithMarkers } from '@switchyard/utils';

// Looking for an attempt's leftover processes reads the environment of every process on the
// machine (see terminateAttempt): attempts that end together share one pass over /proc.
// Asked in the same turn of the event loop, they are answered by one scan that starts after
// every request (so it sees whatever was there when each one asked).
const waiting = new Map<string, Map<string, Array<(pids: number[]) => void>>>();
let scheduled = false;

/** PIDs of live processes whose environment carries `name=value`, from the next shared scan. */
export function processesWithMarker(name: string, value: string): Promise<number[]> {
  return new Promise((resolve) => {
    const byValue = waiting.get(name) ?? new Map<string, Array<(pids: number[]) => void>>();
    waiting.set(name, byValue);
    byValue.set(value, [...(byValue.get(value) ?? []), resolve]);
    if (scheduled) return;
    scheduled = true;
    setImmediate(scan);
  });
}

function scan(): void {
  scheduled = false;
  const batch = [...waiting];
  waiting.clear();
  for (const [name, byValue] of batch) {
    const found = findProcessesWithMarkers(name, new Set(byValue.keys()));
    for (const [value, resolvers] of byValue)
      for (const resolve of resolvers) resolve(found.get(value) ?? []);
  }
}
