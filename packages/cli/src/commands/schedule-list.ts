import {
  loadRuns,
  loadSchedules,
  openSharedSchedules,
  parseCron,
  runsPath,
  type Schedule,
  type ScheduleRuns,
  schedulesPath,
} from '../schedule/index.js';

/** The stored schedules and the daemon's records of their runs, and where they are kept. */
interface Listed {
  file: string;
  schedules: Schedule[];
  runs: Record<string, ScheduleRuns>;
}

/** `switchyard schedules`: each schedule with its next run, last run, last exit and missed runs. */
export async function scheduleList(opts: { json?: boolean; store?: string }): Promise<void> {
  const listed = await readListed(opts.store);
  const rows = listed.schedules.map((s) => scheduleRow(s, listed.runs[s.id]));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ file: listed.file, schedules: rows }, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('No schedules. Add one with `switchyard schedule <plan> --cron "…"`.\n');
    return;
  }
  for (const r of rows) {
    process.stdout.write(
      `${r.id}  "${r.cron}"${r.timezone ? ` ${r.timezone}` : ''}  ${r.plan ?? r.workspace}\n` +
        `    next ${r.nextRun ?? '-'}  last ${r.lastRun ?? 'never'}` +
        `  exit ${r.lastExit ?? '-'}  missed ${r.missed}\n`,
    );
  }
}

/** Reads the schedules from the shared store when one is given, else from this machine's files. */
async function readListed(store: string | undefined): Promise<Listed> {
  const shared = await openSharedSchedules(store);
  if (!shared) {
    return {
      file: schedulesPath(),
      schedules: loadSchedules(schedulesPath()),
      runs: loadRuns(runsPath()),
    };
  }
  try {
    return {
      file: shared.port.locate(),
      schedules: await shared.port.list(),
      runs: await shared.port.runs(),
    };
  } finally {
    await shared.close();
  }
}

/** One listed schedule: the stored record, its next fire and what its last run did. */
function scheduleRow(s: Schedule, record: ScheduleRuns | undefined) {
  let nextRun: string | null = null;
  try {
    nextRun = parseCron(s.cron, s.timezone).nextRun()?.toISOString() ?? null;
  } catch {
    // A hand-edited bad pattern: listed without a next run; the daemon reports it.
  }
  return {
    ...s,
    nextRun,
    lastRun: record?.lastFireAt ?? null,
    lastExit: record?.lastExit ?? null,
    missed: record?.missed ?? 0,
    missedAt: record?.missedAt ?? [],
  };
}
