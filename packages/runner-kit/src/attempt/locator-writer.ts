import type {
  AttemptLocator,
  AttemptLocatorInput,
  Classification,
  RunnerLocatorFields,
  WorkspaceIdentity,
} from '@switchyard/core';
import { PROCESS_MARKER_VAR } from './environment.js';
import { readLocator, writeLocator } from './locator-file.js';

/**
 * The one writer of an attempt's `locator.json`. The file goes through three writes, each an
 * atomic replace of the whole file (a reader sees the old or the new file, never a mix):
 *
 * 1. {@link createLocator}: by the runner right after the spawn, once the pid is known. The
 *    dispatcher has already persisted the attempt record (status `starting`) before the
 *    spawn, so a crash before this write is found by the marker in the process environment.
 * 2. {@link recordLocatorExit}: by the runner when the process has ended (exit status,
 *    watchdog reason, native session id, a provisional result).
 * 3. {@link finalizeLocator}: by the dispatcher once the classifier chain judged the attempt.
 *
 * The first two are not fsynced: a dispatcher crash keeps the page cache, and the final write
 * right after the exit is. After a power loss the agent is dead anyway and a stale `running`
 * locator is judged dead by its start token (the boot id changed).
 */

/** What the runner knows about the process it just spawned. */
export interface LocatorLaunch {
  attemptId: string;
  /** The static fields the dispatcher supplied (task, role, target, catalog, runtime…). */
  fields: RunnerLocatorFields;
  pid: number;
  /** The sandbox the runner started the agent in (bwrap is then the process recorded). */
  sandbox?: AttemptLocatorInput['sandbox'];
  startToken?: string | undefined;
  workspace: WorkspaceIdentity;
  startedAt: Date;
}

/** Writes the launch-time locator: process identity and marker, `result: running`. */
export function createLocator(dir: string, launch: LocatorLaunch): Promise<AttemptLocator> {
  return writeLocator(
    dir,
    {
      ...launch.fields,
      schemaVersion: 1,
      attemptId: launch.attemptId,
      process: {
        pid: launch.pid,
        ...(launch.startToken !== undefined ? { startToken: launch.startToken } : {}),
        markerName: PROCESS_MARKER_VAR,
        marker: launch.attemptId,
        // The agent leads its own process group.
        pgid: launch.pid,
      },
      workspace: launch.workspace,
      ...(launch.sandbox ? { sandbox: launch.sandbox } : {}),
      startedAt: launch.startedAt.toISOString(),
      result: 'running',
    },
    { fsync: false },
  );
}

/** How the process ended, as the runner saw it. */
export interface LocatorExit {
  endedAt: Date;
  exitCode: number | null;
  signal: string | null;
  /** False when the exit was seen only as the process vanishing (re-attached). */
  exitObserved: boolean;
  endedBy?: AttemptLocator['endedBy'];
  sessionId?: string | undefined;
  /** Provisional until {@link finalizeLocator} records the classification. */
  result: 'success' | 'failure';
}

/** Rewrites the launch-time locator with how the process ended. */
export function recordLocatorExit(
  dir: string,
  launched: AttemptLocator,
  exit: LocatorExit,
): Promise<AttemptLocator> {
  return writeLocator(
    dir,
    {
      ...launched,
      endedAt: exit.endedAt.toISOString(),
      exitCode: exit.exitCode,
      signal: exit.signal,
      exitObserved: exit.exitObserved,
      ...(exit.endedBy ? { endedBy: exit.endedBy } : {}),
      ...(exit.sessionId ? { sessionId: exit.sessionId } : {}),
      result: exit.result,
    },
    { fsync: false },
  );
}

/**
 * Records the classifier chain's verdict in an ended attempt's locator (read back from disk,
 * so it keeps whatever the runner recorded): result, failure class, the exact evidence lines,
 * the deciding classifier and `retryAfter`. Fsynced: this is the attempt's last word. For an
 * attempt judged after a restart whose runner never saw the exit, `unobserved.endedAt` is
 * recorded as its end.
 */
export async function finalizeLocator(
  dir: string,
  verdict: Classification,
  unobserved?: { endedAt: Date },
): Promise<AttemptLocator> {
  const locator = await readLocator(dir);
  const { retryAfter: _old, ...rest } = locator;
  return writeLocator(dir, {
    ...rest,
    // An attempt that ended while no dispatcher watched: when it last wrote, exit not seen.
    ...(rest.endedAt === undefined && unobserved
      ? {
          endedAt: unobserved.endedAt.toISOString(),
          exitCode: null,
          signal: null,
          exitObserved: false,
        }
      : {}),
    result: verdict.class === 'success' ? 'success' : 'failure',
    failureClass: verdict.class,
    evidence: verdict.evidence,
    ...(verdict.classifier ? { classifier: verdict.classifier } : {}),
    ...(verdict.retryAfter ? { retryAfter: verdict.retryAfter } : {}),
  });
}
