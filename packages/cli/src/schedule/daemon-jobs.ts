import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { SchedulePort } from '@switchyard/core';
import type { Cron } from 'croner';
import { firesBetween, parseCron } from './cron.js';
import type { RunRecords } from './daemon-records.js';
import type { DaemonOptions } from './daemon-types.js';
import { loadSchedules, type Schedule, schedulesPath } from './store.js';

/** A schedule with its running cron. */
export interface Job {
  schedule: Schedule;
  cron: Cron;
}

/** What a serving daemon holds: its jobs, the runs they started, and their records. */
export interface DaemonState {
  options: DaemonOptions;
  records: RunRecords;
  jobs: Map<string, Job>;
  /** The run going per schedule id. */
  children: Map<string, ChildProcess>;
  /** Where the schedules are kept (a file, or the shared store's location). */
  where: string;
  /** The schedules as last loaded (JSON), to tell a change of shared schedules. */
  loaded: string;
  stopping: boolean;
}

export const now = () => new Date().toISOString();

/** Starts jobs for new or changed schedules, stops those removed or changed. */
export async function loadJobs(d: DaemonState, first: boolean): Promise<void> {
  const { emit, shared } = d.options;
  let schedules: Schedule[];
  try {
    schedules = shared ? await shared.list() : loadSchedules(schedulesPath(d.options.home));
  } catch (error) {
    emit({ type: 'schedule.invalid', at: now(), error: (error as Error).message });
    return;
  }
  // Shared schedules are read again on a timer: only a change reloads.
  if (!first && shared && JSON.stringify(schedules) === d.loaded) return;
  d.loaded = JSON.stringify(schedules);
  const wanted = new Map(schedules.map((s) => [s.id, s]));
  for (const [id, job] of d.jobs) {
    if (JSON.stringify(wanted.get(id)) !== JSON.stringify(job.schedule)) {
      job.cron.stop();
      d.jobs.delete(id);
    }
  }
  for (const schedule of schedules) {
    if (!d.jobs.has(schedule.id)) startJob(d, schedule);
  }
  d.records.persistThenEmit({
    type: first ? 'daemon.started' : 'daemon.reloaded',
    at: now(),
    schedules: d.jobs.size,
    file: d.where,
  });
}

/** Starts the cron of one schedule, first reporting the fires missed while the daemon was down. */
function startJob(d: DaemonState, schedule: Schedule): void {
  const { emit } = d.options;
  let cron: Cron;
  try {
    cron = parseCron(schedule.cron, schedule.timezone);
  } catch (error) {
    emit({ type: 'schedule.invalid', at: now(), id: schedule.id, error: (error as Error).message });
    return;
  }
  // Fires since the daemon last accounted for this schedule were missed while it was down.
  const record = d.records.of(schedule.id);
  const since = [record.lastFireAt, record.seenAt, schedule.createdAt]
    .filter((t): t is string => t !== undefined)
    .map((t) => new Date(t).getTime())
    .reduce((a, b) => Math.max(a, b), 0);
  const missed = firesBetween(cron, new Date(since), new Date());
  if (missed.length > 0) {
    d.records.missed(schedule.id, missed);
    emit({
      type: 'schedule.missed',
      at: now(),
      id: schedule.id,
      count: missed.length,
      last: missed.at(-1)?.toISOString(),
    });
  }
  record.seenAt = now();
  cron.schedule(() => void fire(d, schedule, cron.currentRun() ?? new Date()));
  cron.resume();
  d.jobs.set(schedule.id, { schedule, cron });
}

/**
 * One fire of a schedule: claimed first on a shared store, skipped (missed) while its previous
 * run goes, else `switchyard run` started in its workspace.
 */
async function fire(d: DaemonState, schedule: Schedule, at: Date): Promise<void> {
  const { shared, emit } = d.options;
  if (d.stopping) return;
  const fireAt = at.toISOString();
  // Shared schedules: of the daemons due at this time, the one whose claim lands first runs it.
  if (shared && !(await claimed(shared, schedule.id, fireAt))) {
    emit({ type: 'schedule.taken', at: now(), id: schedule.id, fireAt });
    return;
  }
  if (d.stopping) return;
  if (d.children.has(schedule.id)) {
    d.records.missed(schedule.id, [at]);
    d.records.persistThenEmit({
      type: 'schedule.skipped',
      at: now(),
      id: schedule.id,
      fireAt,
      reason: 'previous run still going',
    });
    return;
  }
  startRun(d, schedule, at);
}

/** Starts `switchyard run` for a fire, its output appended to logs/<id>.log, and records its end. */
function startRun(d: DaemonState, schedule: Schedule, at: Date): void {
  const { options, records, children } = d;
  const args = [
    options.cli[1],
    'run',
    ...(schedule.plan ? [schedule.plan] : []),
    ...schedule.runArgs,
  ];
  const log = openSync(join(options.home, 'logs', `${schedule.id}.log`), 'a');
  const child = spawn(options.cli[0], args, {
    cwd: schedule.workspace,
    stdio: ['ignore', log, log],
    env: process.env,
  });
  closeSync(log);
  children.set(schedule.id, child);
  const record = records.of(schedule.id);
  record.lastFireAt = at.toISOString();
  record.seenAt = now();
  records.persistThenEmit({
    type: 'schedule.fired',
    at: now(),
    id: schedule.id,
    fireAt: at.toISOString(),
    pid: child.pid,
    workspace: schedule.workspace,
  });
  const finished = (code: number | null) => {
    if (children.get(schedule.id) !== child) return;
    children.delete(schedule.id);
    record.lastExit = code;
    record.lastEndedAt = now();
    records.persistThenEmit({ type: 'schedule.exited', at: now(), id: schedule.id, code });
  };
  child.on('error', () => finished(null));
  // Killed by a signal: recorded the way a shell reports it (128 + signal number).
  child.on('close', (code, signal) =>
    finished(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null)),
  );
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
