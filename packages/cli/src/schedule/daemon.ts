import { type FSWatcher, mkdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { acquireWorkspaceLock, type WorkspaceLock } from '@switchyard/store-fs';
import { type DaemonState, loadJobs, now } from './daemon-jobs.js';
import { runRecords } from './daemon-records.js';
import type { DaemonOptions } from './daemon-types.js';
import { loadRuns, runsPath, SCHEDULES_FILE, schedulesPath } from './store.js';

/**
 * Runs every stored schedule until `stop` resolves: on each fire it starts `switchyard run`
 * as a child in the schedule's workspace, never two at once for one schedule, and records the
 * outcome in schedule-runs.json (or the shared store). Re-reads the schedules when they change.
 */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  const { home } = options;
  mkdirSync(join(home, 'logs'), { recursive: true, mode: 0o700 });
  const lock = lockStateHome(home);
  try {
    await serve(options);
  } finally {
    lock.release();
  }
}

/** One daemon per state folder: two would both start every run. */
function lockStateHome(home: string): WorkspaceLock {
  try {
    return acquireWorkspaceLock({ workspace: home, stateDir: home });
  } catch (error) {
    if (!SwitchyardError.is(error) || error.code !== 'SY_LOCK_HELD') throw error;
    let pid = 'another process';
    try {
      pid = `pid ${JSON.parse(readFileSync(error.file ?? '', 'utf8')).pid}`;
    } catch {
      // An unreadable holder: the generic wording stays.
    }
    throw new SwitchyardError(
      'SY_LOCK_HELD',
      `Another switchyard daemon (${pid}) already runs the schedules in ${home}.`,
      {
        ...(error.file ? { file: error.file } : {}),
        hint: 'Only one daemon may serve a state folder; stop that one first (SIGTERM).',
      },
    );
  }
}

/** Loads the schedules, reloads them on a change, and on `stop` ends the runs still going. */
async function serve(options: DaemonOptions): Promise<void> {
  const { home, shared } = options;
  const runs = shared ? await shared.runs() : loadRuns(runsPath(home));
  const d: DaemonState = {
    options,
    records: runRecords(runs, home, shared, options.emit),
    jobs: new Map(),
    children: new Map(),
    where: shared ? shared.locate() : schedulesPath(home),
    loaded: '',
    stopping: false,
  };
  await loadJobs(d, true);
  // Watch the folder: the file is replaced by rename, which a watch on the file itself misses.
  let reload: NodeJS.Timeout | undefined;
  const watcher: FSWatcher | undefined = shared
    ? undefined
    : watch(home, (_event, name) => {
        if (name !== SCHEDULES_FILE || d.stopping) return;
        clearTimeout(reload);
        reload = setTimeout(() => void loadJobs(d, false), 50);
      });
  const poll = shared
    ? setInterval(() => {
        if (!d.stopping) void loadJobs(d, false);
      }, options.pollMs ?? 1000)
    : undefined;

  await options.stop;
  d.stopping = true;
  clearTimeout(reload);
  clearInterval(poll);
  watcher?.close();
  await stopJobs(d);
}

/** Stops every cron and interrupts the runs still going, then records and reports the stop. */
async function stopJobs(d: DaemonState): Promise<void> {
  const { emit } = d.options;
  for (const job of d.jobs.values()) job.cron.stop();
  emit({ type: 'daemon.stopping', at: now(), running: [...d.children.keys()] });
  // Runs still going are interrupted like a terminal Ctrl-C would: they stop cleanly and exit 130.
  const exits = [...d.children.values()].map(
    (child) => new Promise<void>((resolve) => child.once('close', () => resolve())),
  );
  for (const child of d.children.values()) child.kill('SIGTERM');
  await Promise.all(exits);
  for (const id of d.jobs.keys()) d.records.of(id).seenAt = now();
  await d.records.persist();
  emit({ type: 'daemon.stopped', at: now() });
}
