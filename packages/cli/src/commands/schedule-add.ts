import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import {
  loadSchedules,
  openSharedSchedules,
  parseCron,
  type Schedule,
  saveSchedules,
  schedulesPath,
} from '../schedule/index.js';

/** Options of `switchyard schedule`. */
export interface ScheduleOptions {
  cron: string;
  timezone?: string;
  workspace?: string;
  json?: boolean;
  store?: string;
}

/** `switchyard schedule`: store one schedule, then print it and its next run. */
export async function scheduleAdd(
  target: string,
  runArgs: string[],
  opts: ScheduleOptions,
): Promise<void> {
  const cron = parseCron(opts.cron, opts.timezone);
  const path = resolve(target);
  if (!existsSync(path)) {
    throw new SwitchyardError('SY_USAGE', `No such plan or workspace: ${target}`, {
      path: '<plan-or-workspace>',
      hint: 'Give a YAML plan file or a workspace folder that exists.',
    });
  }
  const isPlan = statSync(path).isFile();
  const schedule = newSchedule(path, isPlan, runArgs, opts);
  const file = await storeSchedule(schedule, opts.store);
  const next = cron.nextRun()?.toISOString() ?? null;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ schedule, nextRun: next, file })}\n`);
  } else {
    process.stdout.write(
      `Scheduled ${schedule.id}: ${isPlan ? path : schedule.workspace} at "${opts.cron}"` +
        `${opts.timezone ? ` (${opts.timezone})` : ''}; next run ${next ?? 'never'}.\n` +
        'Runs start while `switchyard daemon` is running.\n',
    );
  }
}

/** The schedule record for a resolved plan file or workspace folder. */
function newSchedule(
  path: string,
  isPlan: boolean,
  runArgs: string[],
  opts: ScheduleOptions,
): Schedule {
  const workspace = resolve(opts.workspace ?? (isPlan ? process.cwd() : path));
  return {
    id: `s-${randomBytes(4).toString('hex')}`,
    cron: opts.cron,
    ...(opts.timezone ? { timezone: opts.timezone } : {}),
    workspace,
    ...(isPlan ? { plan: path } : {}),
    // Each fire of a plan runs it anew once the previous run finished (else continues it).
    runArgs: isPlan && !runArgs.includes('--again') ? ['--again', ...runArgs] : runArgs,
    createdAt: new Date().toISOString(),
  };
}

/** Adds the schedule to the shared store when one is given, else to this machine's file; returns where. */
async function storeSchedule(schedule: Schedule, store: string | undefined): Promise<string> {
  const shared = await openSharedSchedules(store);
  if (!shared) {
    const file = schedulesPath();
    await saveSchedules([...loadSchedules(file), schedule], file);
    return file;
  }
  try {
    await shared.port.put(schedule);
    return shared.port.locate();
  } finally {
    await shared.close();
  }
}
