import { realpathSync } from 'node:fs';
import type { Store } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';
import { fsClaims } from './fs-claims.js';
import { fsIsolation } from './fs-isolation.js';
import { fsLeases } from './fs-leases.js';
import { fsSessions } from './fs-sessions.js';
import { fsTasks } from './fs-tasks.js';
import { fsLayout, stateHome } from './layout.js';
import type { Locked } from './locked.js';

/**
 * The ports a reader of a workspace's store has, in the store's own shapes: task states,
 * leases, claims, sessions and isolation records. Their writes refuse.
 */
export type FsReader = Pick<
  Store,
  'kind' | 'location' | 'tasks' | 'leases' | 'claims' | 'sessions' | 'isolation'
>;

const refusal = (what: string) => () =>
  Promise.reject(
    new SwitchyardError('SY_INTERNAL', `A store opened for reading was asked to write (${what}).`),
  );

/** The port with each of its `writes` replaced by a refusal. */
function readOnly<P extends object>(port: P, name: string, writes: readonly (keyof P)[]): P {
  const out = { ...port };
  for (const write of writes) out[write] = refusal(`${name}.${String(write)}`) as P[keyof P];
  return out;
}

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
  const { check: _check, flush: _flush, ...leasePort } = leases;
  return {
    kind: 'fs',
    location: layout.stateDir,
    tasks: readOnly(
      fsTasks(layout.workspace, layout.stateDir, layout.tasksDir, locked, leases, Date.now),
      'tasks',
      ['put', 'delete'],
    ),
    leases: readOnly(leasePort, 'leases', ['acquire', 'renew', 'release']),
    claims: readOnly(fsClaims(layout.stateDir, locked, leases), 'claims', ['tryClaim', 'release']),
    sessions: readOnly(fsSessions(layout.stateDir), 'sessions', [
      'create',
      'putStatus',
      'appendEvent',
      'putMonitor',
    ]),
    isolation: readOnly(
      fsIsolation(layout.stateDir, layout.recordsDir, layout.journalsDir, leases),
      'isolation',
      ['putRecord', 'removeRecord', 'putJournal', 'removeJournal'],
    ),
  };
}
