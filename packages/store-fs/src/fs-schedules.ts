import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  keepingLastFire,
  type Schedule,
  type SchedulePort,
  type ScheduleRuns,
  SwitchyardError,
} from '@switchyard/core';
import { replaceFile } from '@switchyard/utils';
import { lockedSection } from './locked.js';

export const SCHEDULES_FILE = 'schedules.json';
export const RUNS_FILE = 'schedule-runs.json';

function readJson(file: string): unknown {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SwitchyardError('SY_USAGE', `${file} is not valid JSON.`, {
      file,
      cause: error,
      hint: 'Fix or delete the file (it is rewritten whole by `switchyard schedule`).',
    });
  }
}

/** The stored schedules of a `schedules.json` (none when it does not exist yet). */
export function readSchedules(file: string): Schedule[] {
  const data = readJson(file) as { schedules?: Schedule[] } | undefined;
  if (data === undefined) return [];
  if (!Array.isArray(data.schedules)) {
    throw new SwitchyardError('SY_USAGE', `${file} has no "schedules" list.`, {
      file,
      path: 'schedules',
      hint: 'Fix or delete the file.',
    });
  }
  return data.schedules;
}

/**
 * Schedules in the machine's state folder, as before: `schedules.json` (the schedules) and
 * `schedule-runs.json` (the daemon's record of their runs), each rewritten whole, fsynced,
 * under a file mutex (`schedules.lock`) so daemons and commands never lose each other's
 * changes; `claimFire` records a fire time only when no later one is there (fires once).
 */
export function fsSchedules(home: string): SchedulePort {
  const schedulesFile = join(home, SCHEDULES_FILE);
  const runsFile = join(home, RUNS_FILE);
  const locked = lockedSection(join(home, 'schedules.lock'), false);
  const readRuns = (): Record<string, ScheduleRuns> =>
    (readJson(runsFile) as { runs?: Record<string, ScheduleRuns> } | undefined)?.runs ?? {};
  const save = async (file: string, value: unknown) => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    await replaceFile(file, `${JSON.stringify(value, null, 2)}\n`, { durable: true });
  };
  const saveSchedules = (schedules: Schedule[]) => save(schedulesFile, { version: 1, schedules });
  const saveRuns = (runs: Record<string, ScheduleRuns>) => save(runsFile, { version: 1, runs });
  const mutate = <T>(fn: () => Promise<T>) =>
    locked(async () => {
      mkdirSync(home, { recursive: true, mode: 0o700 });
      return fn();
    });
  return {
    list: async () => readSchedules(schedulesFile),
    put: (schedule) =>
      mutate(() =>
        saveSchedules([
          ...readSchedules(schedulesFile).filter((s) => s.id !== schedule.id),
          schedule,
        ]),
      ),
    remove: (id) =>
      mutate(async () => {
        const all = readSchedules(schedulesFile);
        const kept = all.filter((s) => s.id !== id);
        if (kept.length === all.length) return false;
        await saveSchedules(kept);
        return true;
      }),
    runs: async () => readRuns(),
    putRuns: (id, runs) =>
      mutate(() => {
        const all = readRuns();
        return saveRuns({ ...all, [id]: keepingLastFire(all[id], runs) });
      }),
    claimFire: (id, fireAt) =>
      mutate(async () => {
        const all = readRuns();
        const runs = all[id] ?? { missed: 0, missedAt: [] };
        if (runs.lastFireAt !== undefined && Date.parse(runs.lastFireAt) >= Date.parse(fireAt))
          return false;
        await saveRuns({ ...all, [id]: { ...runs, lastFireAt: fireAt } });
        return true;
      }),
    locate: () => schedulesFile,
  };
}
