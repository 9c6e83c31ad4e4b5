import { realpathSync } from 'node:fs';
import type { LeasePort, Store } from '@switchyard/core';
import { fsClaims } from './fs-claims.js';
import { fsIsolation } from './fs-isolation.js';
import { fsLeases } from './fs-leases.js';
import { fsSessions } from './fs-sessions.js';
import { fsTasks } from './fs-tasks.js';
import { fsLayout, stateHome } from './layout.js';
import type { Locked } from './locked.js';
import {
  CLAIM_METHODS,
  ISOLATION_METHODS,
  LEASE_METHODS,
  readOnly,
  refusal,
  SESSION_METHODS,
  TASK_STATE_METHODS,
} from './read-only-port.js';

/**
 * The ports a reader of a workspace's store has, in the store's own shapes: task states,
 * leases, claims, sessions and isolation records. Everything but their reads refuses.
 */
export type FsReader = Pick<
  Store,
  'kind' | 'location' | 'tasks' | 'leases' | 'claims' | 'sessions' | 'isolation'
>;

/**
 * Opens the file store of a workspace for reading: the same record modules and formats as
 * `openFsStore`, without the attempt, event, work-log and escalation modules (and without the
 * runner kit), so a command that only reads loads little. Nothing is created or written, not
 * even a lock file: reads take no lock, as every record is replaced atomically.
 */
export function openFsReader(options: { workspace: string }): FsReader {
  const layout = fsLayout(realpathSync(options.workspace), stateHome());
  const locked: Locked = refusal('a locked section');
  const leases = fsLeases(layout.leasesFile, locked, Date.now);
  return {
    kind: 'fs',
    location: layout.stateDir,
    tasks: readOnly(
      fsTasks(layout.workspace, layout.stateDir, layout.tasksDir, locked, leases, Date.now),
      'tasks',
      TASK_STATE_METHODS,
    ),
    // The file leases have `check` and `flush` beyond the port: refused with the writes.
    leases: readOnly<LeasePort>(leases, 'leases', LEASE_METHODS),
    claims: readOnly(fsClaims(layout.stateDir, locked, leases), 'claims', CLAIM_METHODS),
    sessions: readOnly(fsSessions(layout.stateDir), 'sessions', SESSION_METHODS),
    isolation: readOnly(
      fsIsolation(layout.stateDir, layout.recordsDir, layout.journalsDir, leases),
      'isolation',
      ISOLATION_METHODS,
    ),
  };
}
