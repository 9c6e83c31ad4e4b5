import type { SchedulePort } from '@switchyard/core';
import type { DaemonEvent } from './daemon-types.js';
import { MISSED_KEPT, runsPath, type ScheduleRuns, saveRuns } from './store.js';

/** The daemon's records of each schedule's runs, and their writes (in order, one chain). */
export interface RunRecords {
  /** The record of a schedule, made empty on first use. */
  of(id: string): ScheduleRuns;
  /** Counts fires that did not start a run, keeping the latest {@link MISSED_KEPT} times. */
  missed(id: string, at: Date[]): void;
  /** Writes a snapshot of every record after the writes before it. */
  persist(): Promise<void>;
  /** Emits once the record is on disk, so whoever sees the event can read it. */
  persistThenEmit(event: DaemonEvent): void;
}

export function runRecords(
  runs: Record<string, ScheduleRuns>,
  home: string,
  shared: SchedulePort | undefined,
  emit: (event: DaemonEvent) => void,
): RunRecords {
  // Every write goes through one chain, so records land in order.
  let writes: Promise<void> = Promise.resolve();
  const persist = () => {
    const snapshot = structuredClone(runs);
    writes = writes
      .then(async () => {
        if (!shared) return saveRuns(snapshot, runsPath(home));
        for (const [id, record] of Object.entries(snapshot)) await shared.putRuns(id, record);
      })
      .catch((error: Error) => {
        process.stderr.write(`switchyard daemon: cannot record runs: ${error.message}\n`);
      });
    return writes;
  };
  const of = (id: string): ScheduleRuns => {
    runs[id] ??= { missed: 0, missedAt: [] };
    return runs[id];
  };
  return {
    of,
    missed(id, at) {
      const record = of(id);
      record.missed += at.length;
      record.missedAt = [...record.missedAt, ...at.map((d) => d.toISOString())].slice(-MISSED_KEPT);
    },
    persist,
    persistThenEmit: (event) => void persist().then(() => emit(event)),
  };
}
