import { realpathSync } from 'node:fs';
import type { Store, StoreClockOptions } from '@switchyard/core';
import { deferredWrites } from '@switchyard/utils';
import { fsAttempts } from './fs-attempts.js';
import { fsClaims } from './fs-claims.js';
import { fsEscalations } from './fs-escalations.js';
import { fsEvents } from './fs-events.js';
import { fsIsolation } from './fs-isolation.js';
import { fsLeases } from './fs-leases.js';
import { fsSchedules } from './fs-schedules.js';
import { fsSessions } from './fs-sessions.js';
import { fsTargets } from './fs-targets.js';
import { fsTasks } from './fs-tasks.js';
import { fsWorkLog } from './fs-work-log.js';
import { type FsLayout, fsLayout, stateHome } from './layout.js';
import { lockedSection } from './locked.js';

/** Options of {@link openFsStore}. */
export interface FsStoreOptions extends StoreClockOptions {
  /** The workspace (any path to it; the store uses its real path). */
  workspace: string;
  /**
   * True when the opener holds the workspace lock, so no other process writes this store:
   * task, lease and target writes then take turns in this process only, without the file
   * mutex. Readers (status, the monitor) and tests with several holders leave it false.
   */
  exclusive?: boolean;
  /** Where schedules live (default {@link stateHome}). */
  scheduleHome?: string;
}

/** The file store, with where it keeps each record. */
export interface FsStore extends Store {
  readonly layout: FsLayout;
}

/**
 * Opens the file store of a workspace: today's files and formats under
 * `agent-task/.switchyard/` (work logs in `agent-task/<group>/WORK_LOG.md`), behind the core
 * store ports. Nothing is created until something is written.
 */
export function openFsStore(options: FsStoreOptions): FsStore {
  const layout = fsLayout(realpathSync(options.workspace), options.scheduleHome ?? stateHome());
  const now = options.now ?? Date.now;
  const locked = lockedSection(layout.storeLock, options.exclusive === true);
  const leases = fsLeases(
    layout.leasesFile,
    locked,
    now,
    options.exclusive === true,
    deferredWrites(options.timers),
  );
  const events = fsEvents(layout.eventsFile, leases);
  const workLog = fsWorkLog(layout.workspace, leases);
  const sessions = fsSessions(layout.stateDir);
  const { check: _check, flush: flushLeases, ...leasePort } = leases;
  return {
    kind: 'fs',
    location: layout.stateDir,
    layout,
    tasks: fsTasks(
      layout.workspace,
      layout.stateDir,
      layout.tasksDir,
      locked,
      leases,
      now,
      options.exclusive === true,
    ),
    leases: leasePort,
    claims: fsClaims(layout.stateDir, locked, leases, options.exclusive === true),
    events,
    workLog,
    attempts: fsAttempts(layout.attemptsDir, leases),
    sessions,
    escalations: fsEscalations(layout.workspace, layout.stateDir, layout.escalationsDir, leases),
    isolation: fsIsolation(layout.stateDir, layout.recordsDir, layout.journalsDir, leases),
    schedules: fsSchedules(layout.scheduleHome),
    targets: fsTargets(layout.targetsFile, locked, leases, now),
    async close() {
      await flushLeases().catch(() => undefined);
      await workLog.flush().catch(() => undefined);
      workLog.close();
      events.close();
      sessions.close();
    },
  };
}

/** `openFsStore` in the shape of a conformance-suite child opener: `(arg, { now })`. */
export function openFsStoreAt(
  location: Pick<FsStoreOptions, 'workspace' | 'scheduleHome'>,
  clock: StoreClockOptions = {},
): FsStore {
  return openFsStore({ ...location, ...clock });
}
