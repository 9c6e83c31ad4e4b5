import type { AttemptRecord } from '@switchyard/core';
import {
  findProcessesWithMarker,
  hasEnvironmentMarker,
  isSameProcessAlive,
  readStartToken,
} from '@switchyard/utils';

/** Environment variable carrying the process marker of every attempt. */
export const ATTEMPT_MARKER_ENV = 'SWITCHYARD_ATTEMPT_ID';

/** What a restarted dispatcher finds for an attempt that was not marked finished. */
export type AttemptProbe =
  | { state: 'live'; pid: number; startToken: string | undefined }
  | { state: 'gone' };

/**
 * Looks for the live process of an unfinished attempt. A recorded PID counts only with the
 * same start token AND the attempt's marker in its environment (PID reuse is not ours); a
 * `starting` record (dispatcher died between the record and the spawn, or before it could
 * write the PID) is searched by marker. `gone` means the attempt is judged from its
 * evidence, or as `process-termination` when there is none.
 */
export function probeAttempt(record: AttemptRecord): AttemptProbe {
  if (record.status === 'finished') return { state: 'gone' };
  if (
    record.pid !== undefined &&
    isSameProcessAlive({ pid: record.pid, startToken: record.startToken }) &&
    hasEnvironmentMarker(record.pid, ATTEMPT_MARKER_ENV, record.id)
  ) {
    return { state: 'live', pid: record.pid, startToken: readStartToken(record.pid) };
  }
  // The marker is inherited by the agent's own children; the group leader has the lowest PID
  // among the survivors only by convention, so take any live holder: it proves the stage runs.
  const pids = findProcessesWithMarker(ATTEMPT_MARKER_ENV, record.id).filter((pid) =>
    isSameProcessAlive({ pid, startToken: undefined }),
  );
  const pid = record.pid !== undefined && pids.includes(record.pid) ? record.pid : pids[0];
  if (pid === undefined) return { state: 'gone' };
  return { state: 'live', pid, startToken: readStartToken(pid) };
}
