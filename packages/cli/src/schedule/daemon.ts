import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, type FSWatcher, mkdirSync, openSync, readFileSync, watch } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { type SchedulePort, SwitchyardError } from '@switchyard/core';
import { acquireWorkspaceLock, type WorkspaceLock } from '@switchyard/store-fs';
import type { Cron } from 'croner';
import { firesBetween, parseCron } from './cron.js';
import {
  loadRuns,
  loadSchedules,
  MISSED_KEPT,
  runsPath,
  SCHEDULES_FILE,
  type Schedule,
  type ScheduleRuns,
  saveRuns,
  schedulesPath,
} from './store.js';

/** One thing the daemon did, printed as a line (or JSON with --json). */
export interface DaemonEvent {
  type:
    | 'daemon.started'
    | 'daemon.reloaded'
    | 'daemon.stopping'
    | 'daemon.stopped'
    | 'schedule.fired'
    | 'schedule.exited'
    | 'schedule.skipped'
    | 'schedule.taken'
    | 'schedule.missed'
    | 'schedule.invalid';
  at: string;
  [key: string]: unknown;
}

export interface DaemonOptions {
  home: string;
  /** argv that starts the CLI: [node, bin.js]. */
  cli: [string, string];
  emit: (event: DaemonEvent) => void;
  /** Resolves when the daemon should stop (SIGTERM/SIGINT). */
  stop: Promise<void>;
  /**
   * Schedules shared by every daemon on a store (PostgreSQL): read and recorded there, and each
   * fire time claimed (`claimFire`) before a run starts, so it fires once across daemons.
   * Absent: this machine's `schedules.json` (one daemon per state folder).
   */
  shared?: SchedulePort;
  /** How often shared schedules are read again for changes (ms; default 1000). */
  pollMs?: number;
}

interface Job {
  schedule: Schedule;
  cron: Cron;
}

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

async function serve(options: DaemonOptions): Promise<void> {
  const { home, emit, shared } = options;
  const runs = shared ? await shared.runs() : loadRuns(runsPath(home));
  const where = shared ? shared.locate() : schedulesPath(home);
  const jobs = new Map<string, Job>();
  const children = new Map<string, ChildProcess>();
  const now = () => new Date().toISOString();
  let stopping = false;
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
  /** Emits once the record is on disk, so whoever sees the event can read it. */
  const persistThenEmit = (event: DaemonEvent) => void persist().then(() => emit(event));
  const recordOf = (id: string): ScheduleRuns => {
    runs[id] ??= { missed: 0, missedAt: [] };
    return runs[id];
  };
  const recordMissed = (id: string, at: Date[]) => {
    const record = recordOf(id);
    record.missed += at.length;
    record.missedAt = [...record.missedAt, ...at.map((d) => d.toISOString())].slice(-MISSED_KEPT);
  };

  const fire = async (schedule: Schedule, at: Date) => {
    if (stopping) return;
    const fireAt = at.toISOString();
    // Shared schedules: of the daemons due at this time, the one whose claim lands first runs it.
    if (shared && !(await claimed(shared, schedule.id, fireAt))) {
      emit({ type: 'schedule.taken', at: now(), id: schedule.id, fireAt });
      return;
    }
    if (stopping) return;
    if (children.has(schedule.id)) {
      recordMissed(schedule.id, [at]);
      persistThenEmit({
        type: 'schedule.skipped',
        at: now(),
        id: schedule.id,
        fireAt,
        reason: 'previous run still going',
      });
      return;
    }
    const args = [
      options.cli[1],
      'run',
      ...(schedule.plan ? [schedule.plan] : []),
      ...schedule.runArgs,
    ];
    const log = openSync(join(home, 'logs', `${schedule.id}.log`), 'a');
    const child = spawn(options.cli[0], args, {
      cwd: schedule.workspace,
      stdio: ['ignore', log, log],
      env: process.env,
    });
    closeSync(log);
    children.set(schedule.id, child);
    const record = recordOf(schedule.id);
    record.lastFireAt = at.toISOString();
    record.seenAt = now();
    persistThenEmit({
      type: 'schedule.fired',
      at: now(),
      id: schedule.id,
      fireAt,
      pid: child.pid,
      workspace: schedule.workspace,
    });
    const finished = (code: number | null) => {
      if (children.get(schedule.id) !== child) return;
      children.delete(schedule.id);
      record.lastExit = code;
      record.lastEndedAt = now();
      persistThenEmit({ type: 'schedule.exited', at: now(), id: schedule.id, code });
    };
    child.on('error', () => finished(null));
    // Killed by a signal: recorded the way a shell reports it (128 + signal number).
    child.on('close', (code, signal) =>
      finished(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null)),
    );
  };

  /** Starts jobs for new or changed schedules, stops those removed or changed. */
  let loaded = '';
  const load = async (first: boolean) => {
    let schedules: Schedule[];
    try {
      schedules = shared ? await shared.list() : loadSchedules(schedulesPath(home));
    } catch (error) {
      emit({ type: 'schedule.invalid', at: now(), error: (error as Error).message });
      return;
    }
    // Shared schedules are read again on a timer: only a change reloads.
    if (!first && shared && JSON.stringify(schedules) === loaded) return;
    loaded = JSON.stringify(schedules);
    const wanted = new Map(schedules.map((s) => [s.id, s]));
    for (const [id, job] of jobs) {
      if (JSON.stringify(wanted.get(id)) !== JSON.stringify(job.schedule)) {
        job.cron.stop();
        jobs.delete(id);
      }
    }
    for (const schedule of schedules) {
      if (jobs.has(schedule.id)) continue;
      let cron: Cron;
      try {
        cron = parseCron(schedule.cron, schedule.timezone);
      } catch (error) {
        emit({
          type: 'schedule.invalid',
          at: now(),
          id: schedule.id,
          error: (error as Error).message,
        });
        continue;
      }
      // Fires since the daemon last accounted for this schedule were missed while it was down.
      const record = recordOf(schedule.id);
      const since = [record.lastFireAt, record.seenAt, schedule.createdAt]
        .filter((t): t is string => t !== undefined)
        .map((t) => new Date(t).getTime())
        .reduce((a, b) => Math.max(a, b), 0);
      const missed = firesBetween(cron, new Date(since), new Date());
      if (missed.length > 0) {
        recordMissed(schedule.id, missed);
        emit({
          type: 'schedule.missed',
          at: now(),
          id: schedule.id,
          count: missed.length,
          last: missed.at(-1)?.toISOString(),
        });
      }
      record.seenAt = now();
      cron.schedule(() => void fire(schedule, cron.currentRun() ?? new Date()));
      cron.resume();
      jobs.set(schedule.id, { schedule, cron });
    }
    persistThenEmit({
      type: first ? 'daemon.started' : 'daemon.reloaded',
      at: now(),
      schedules: jobs.size,
      file: where,
    });
  };

  await load(true);
  // Watch the folder: the file is replaced by rename, which a watch on the file itself misses.
  let reload: NodeJS.Timeout | undefined;
  const watcher: FSWatcher | undefined = shared
    ? undefined
    : watch(home, (_event, name) => {
        if (name !== SCHEDULES_FILE || stopping) return;
        clearTimeout(reload);
        reload = setTimeout(() => void load(false), 50);
      });
  const poll = shared
    ? setInterval(() => {
        if (!stopping) void load(false);
      }, options.pollMs ?? 1000)
    : undefined;

  await options.stop;
  stopping = true;
  clearTimeout(reload);
  clearInterval(poll);
  watcher?.close();
  for (const job of jobs.values()) job.cron.stop();
  emit({ type: 'daemon.stopping', at: now(), running: [...children.keys()] });
  // Runs still going are interrupted like a terminal Ctrl-C would: they stop cleanly and exit 130.
  const exits = [...children.values()].map(
    (child) => new Promise<void>((resolve) => child.once('close', () => resolve())),
  );
  for (const child of children.values()) child.kill('SIGTERM');
  await Promise.all(exits);
  for (const id of jobs.keys()) recordOf(id).seenAt = now();
  await persist();
  emit({ type: 'daemon.stopped', at: now() });
}

/** Claims a shared fire time; a store that cannot be reached is reported and fires nothing. */
async function claimed(shared: SchedulePort, id: string, fireAt: string): Promise<boolean> {
  try {
    return await shared.claimFire(id, fireAt);
  } catch (error) {
    process.stderr.write(
      `switchyard daemon: cannot claim the fire of ${id} at ${fireAt} in ${shared.locate()}: ${(error as Error).message}\n`,
    );
    return false;
  }
}
