import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { replaceFile } from '@switchyard/utils';

/** One stored schedule: when and how `switchyard run` is started by the daemon. */
export interface Schedule {
  id: string;
  cron: string;
  /** IANA time zone the cron is read in; absent = the daemon's local time. */
  timezone?: string;
  /** Folder the run starts in. */
  workspace: string;
  /** Absolute path of the YAML plan, when the schedule runs a plan. */
  plan?: string;
  /** Extra `switchyard run` arguments. */
  runArgs: string[];
  createdAt: string;
}

/** What the daemon recorded about a schedule's runs (written by the daemon only). */
export interface ScheduleRuns {
  /** Time of the last fire that started a run. */
  lastFireAt?: string;
  lastExit?: number | null;
  lastEndedAt?: string;
  /** Fires that did not start a run: the previous run was still going, or the daemon was down. */
  missed: number;
  /** The most recent missed fire times (at most {@link MISSED_KEPT}). */
  missedAt: string[];
  /** When the daemon last accounted for this schedule (fires before this are not "missed"). */
  seenAt?: string;
}

export const MISSED_KEPT = 20;

/**
 * The folder holding schedules: `$SWITCHYARD_STATE_HOME`, else `$XDG_STATE_HOME/switchyard`,
 * else `~/.local/state/switchyard`. Machine state, not workspace state: the daemon serves many.
 */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHYARD_STATE_HOME) return env.SWITCHYARD_STATE_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'switchyard');
  return join(homedir(), '.local', 'state', 'switchyard');
}

export const SCHEDULES_FILE = 'schedules.json';
export const RUNS_FILE = 'schedule-runs.json';

export function schedulesPath(home = stateHome()): string {
  return join(home, SCHEDULES_FILE);
}

export function runsPath(home = stateHome()): string {
  return join(home, RUNS_FILE);
}

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

/** The stored schedules (none when the file does not exist yet). */
export function loadSchedules(file = schedulesPath()): Schedule[] {
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

/** Writes the schedules crash-safely (temp file, fsync, rename). */
export async function saveSchedules(schedules: Schedule[], file = schedulesPath()): Promise<void> {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  await replaceFile(file, `${JSON.stringify({ version: 1, schedules }, null, 2)}\n`, {
    durable: true,
  });
}

/** The daemon's run records by schedule id. */
export function loadRuns(file = runsPath()): Record<string, ScheduleRuns> {
  const data = readJson(file) as { runs?: Record<string, ScheduleRuns> } | undefined;
  return data?.runs ?? {};
}

export async function saveRuns(
  runs: Record<string, ScheduleRuns>,
  file = runsPath(),
): Promise<void> {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  await replaceFile(file, `${JSON.stringify({ version: 1, runs }, null, 2)}\n`, { durable: true });
}
