import type { Command } from 'commander';
import type { Schedule, ScheduleRuns } from '../schedule/index.js';

/** Options of `switchyard schedule`. */
export interface ScheduleOptions {
  cron: string;
  timezone?: string;
  workspace?: string;
  json?: boolean;
  store?: string;
}

const STATE_HELP = `
Schedules live in $SWITCHYARD_STATE_HOME/schedules.json (default
$XDG_STATE_HOME/switchyard, else ~/.local/state/switchyard); the daemon records each
schedule's last run, exit code and missed fires in schedule-runs.json beside it, and each
run's output in logs/<id>.log. With --store postgres://… (or SWITCHYARD_STORE) schedules
and their run records live in that database instead, shared by every daemon started on it:
each fire time starts one run, on the daemon that claims it first.`;

const STORE_FLAG = [
  '--store <url>',
  'keep the schedules in this PostgreSQL store, shared by every daemon on it (default: SWITCHYARD_STORE, else this machine)',
] as const;

/** The [node, bin.js] pair that starts this CLI again (for children and the systemd unit). */
async function cliArgv(): Promise<[string, string]> {
  const { realpathSync } = await import('node:fs');
  const bin = process.argv[1];
  if (!bin)
    throw new Error('cannot tell where the switchyard binary is (process.argv[1] is empty)');
  return [process.execPath, realpathSync(bin)];
}

/** `schedule`, `unschedule`, `schedules` and `daemon`: timed, unattended runs. */
export function registerSchedule(program: Command): void {
  program
    .command('schedule')
    .description(
      'Run a plan or a workspace on a cron schedule (kept running by `switchyard daemon`).',
    )
    .argument('<plan-or-workspace>', 'a YAML plan file, or a workspace folder to `switchyard run`')
    .argument(
      '[run-args...]',
      'after `--`: extra `switchyard run` options, e.g. -- --max-parallel 2',
    )
    .requiredOption('--cron <pattern>', 'when to run: 5 fields, or 6 with seconds first')
    .option(
      '--timezone <iana>',
      'read the cron in this time zone (default: the daemon’s local time)',
    )
    .option(
      '--workspace <dir>',
      'folder the run starts in (default: the current folder, or the folder given)',
    )
    .option('--json', 'print the stored schedule as JSON')
    .option(...STORE_FLAG)
    .addHelpText(
      'after',
      `
${STATE_HELP}
Nothing runs until \`switchyard daemon\` is running (see \`switchyard daemon --help\`).
A plan is run with --again: each fire runs it anew once its previous run finished, and
continues a run that did not finish (its blocked tasks stay blocked until resolved). The
plan's path is stored resolved; how it was typed, or the daemon's folder, never matters.
Exit codes: 0 stored, 2 bad cron, time zone or path (nothing stored).

Examples:
  $ switchyard schedule plan.yaml --cron "0 2 * * *" --timezone Europe/Berlin
  $ switchyard schedule ~/src/app --cron "*/30 * * * *" -- --execution-catalog ci.json
  $ switchyard schedule . --cron "0 */10 * * * *"     # every 10 minutes, on second 0`,
    )
    .action(async (target: string, runArgs: string[], opts: ScheduleOptions) => {
      const { SwitchyardError } = await import('@switchyard/core');
      const { existsSync, statSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { randomBytes } = await import('node:crypto');
      const { parseCron, loadSchedules, saveSchedules, schedulesPath } = await import(
        '../schedule/index.js'
      );
      const cron = parseCron(opts.cron, opts.timezone);
      const path = resolve(target);
      if (!existsSync(path)) {
        throw new SwitchyardError('SY_USAGE', `No such plan or workspace: ${target}`, {
          path: '<plan-or-workspace>',
          hint: 'Give a YAML plan file or a workspace folder that exists.',
        });
      }
      const isPlan = statSync(path).isFile();
      const workspace = resolve(opts.workspace ?? (isPlan ? process.cwd() : path));
      const schedule = {
        id: `s-${randomBytes(4).toString('hex')}`,
        cron: opts.cron,
        ...(opts.timezone ? { timezone: opts.timezone } : {}),
        workspace,
        ...(isPlan ? { plan: path } : {}),
        // Each fire of a plan runs it anew once the previous run finished (else continues it).
        runArgs: isPlan && !runArgs.includes('--again') ? ['--again', ...runArgs] : runArgs,
        createdAt: new Date().toISOString(),
      };
      const { openSharedSchedules } = await import('../schedule/index.js');
      const shared = await openSharedSchedules(opts.store);
      let file = schedulesPath();
      if (shared) {
        try {
          await shared.port.put(schedule);
          file = shared.port.locate();
        } finally {
          await shared.close();
        }
      } else await saveSchedules([...loadSchedules(file), schedule], file);
      const next = cron.nextRun()?.toISOString() ?? null;
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ schedule, nextRun: next, file })}\n`);
      } else {
        process.stdout.write(
          `Scheduled ${schedule.id}: ${isPlan ? path : workspace} at "${opts.cron}"` +
            `${opts.timezone ? ` (${opts.timezone})` : ''}; next run ${next ?? 'never'}.\n` +
            'Runs start while `switchyard daemon` is running.\n',
        );
      }
    });

  program
    .command('unschedule')
    .description('Remove schedules, by id or by the plan or workspace they run.')
    .argument(
      '<id-or-plan>',
      'a schedule id (see `switchyard schedules`), or a plan file / workspace',
    )
    .option(...STORE_FLAG)
    .addHelpText('after', `${STATE_HELP}\nExit codes: 0 removed, 2 nothing matched.`)
    .action(async (key: string, opts: { store?: string }) => {
      const { SwitchyardError } = await import('@switchyard/core');
      const { resolve } = await import('node:path');
      const { loadSchedules, openSharedSchedules, saveSchedules, schedulesPath } = await import(
        '../schedule/index.js'
      );
      const shared = await openSharedSchedules(opts.store);
      const file = shared ? shared.port.locate() : schedulesPath();
      const path = resolve(key);
      const matches = (s: Schedule) =>
        s.id === key || s.plan === path || (!s.plan && s.workspace === path);
      let removed: Schedule[];
      try {
        const all = shared ? await shared.port.list() : loadSchedules(file);
        removed = all.filter(matches);
        if (removed.length === 0) {
          throw new SwitchyardError('SY_USAGE', `No schedule matches "${key}".`, {
            file,
            hint: `List them with \`switchyard schedules${opts.store ? ' --store URL' : ''}\`.`,
          });
        }
        if (shared) for (const s of removed) await shared.port.remove(s.id);
        else
          await saveSchedules(
            all.filter((s) => !matches(s)),
            file,
          );
      } finally {
        await shared?.close();
      }
      process.stdout.write(`Removed ${removed.map((s) => s.id).join(', ')}.\n`);
    });

  program
    .command('schedules')
    .description('List schedules with their next run, last run, last exit code and missed runs.')
    .option('--json', 'print one JSON document')
    .option(...STORE_FLAG)
    .addHelpText('after', STATE_HELP)
    .action(async (opts: { json?: boolean; store?: string }) => {
      const { parseCron, loadRuns, loadSchedules, openSharedSchedules, runsPath, schedulesPath } =
        await import('../schedule/index.js');
      const shared = await openSharedSchedules(opts.store);
      let listed: { file: string; schedules: Schedule[]; runs: Record<string, ScheduleRuns> };
      try {
        listed = shared
          ? {
              file: shared.port.locate(),
              schedules: await shared.port.list(),
              runs: await shared.port.runs(),
            }
          : {
              file: schedulesPath(),
              schedules: loadSchedules(schedulesPath()),
              runs: loadRuns(runsPath()),
            };
      } finally {
        await shared?.close();
      }
      const { runs } = listed;
      const rows = listed.schedules.map((s) => {
        const record = runs[s.id];
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
      });
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify({ file: listed.file, schedules: rows }, null, 2)}\n`,
        );
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(
          'No schedules. Add one with `switchyard schedule <plan> --cron "…"`.\n',
        );
        return;
      }
      for (const r of rows) {
        process.stdout.write(
          `${r.id}  "${r.cron}"${r.timezone ? ` ${r.timezone}` : ''}  ${r.plan ?? r.workspace}\n` +
            `    next ${r.nextRun ?? '-'}  last ${r.lastRun ?? 'never'}` +
            `  exit ${r.lastExit ?? '-'}  missed ${r.missed}\n`,
        );
      }
    });

  program
    .command('daemon')
    .description(
      'Run the stored schedules until stopped (SIGTERM/SIGINT); --print-unit for systemd.',
    )
    .option('--print-unit', 'print a systemd user unit that keeps the daemon running, and exit')
    .option(
      '--json',
      'print what happens as JSON lines (fired, exited, skipped, taken, missed, reloaded)',
    )
    .option(...STORE_FLAG)
    .addHelpText(
      'after',
      `
${STATE_HELP}
On each fire the daemon starts \`switchyard run [plan] [run-args]\` in the schedule's
workspace. A run still going when the next fire is due is not started twice: that fire
counts as missed. Daemons sharing a store (--store) each claim a due fire time in the
database; the first claim runs it, the others print schedule.taken. Fires that passed while the daemon was down are reported as missed on
start (they are not run late). Editing schedules (schedule/unschedule) takes effect at
once. SIGTERM or SIGINT stops the daemon: running runs are interrupted and finish cleanly.

Keep it running with systemd:
  $ mkdir -p ~/.config/systemd/user
  $ switchyard daemon --print-unit > ~/.config/systemd/user/switchyard.service
  $ systemctl --user enable --now switchyard.service
  $ loginctl enable-linger "$USER"      # keep running after you log out
  $ journalctl --user -u switchyard -f  # what it did`,
    )
    .action(async (opts: { printUnit?: boolean; json?: boolean; store?: string }) => {
      const { openSharedSchedules, runDaemon, stateHome, systemdUserUnit } = await import(
        '../schedule/index.js'
      );
      const cli = await cliArgv();
      if (opts.printUnit) {
        process.stdout.write(systemdUserUnit(cli));
        return;
      }
      const stop = new Promise<void>((resolve) => {
        const done = () => {
          process.off('SIGINT', done);
          process.off('SIGTERM', done);
          resolve();
        };
        process.on('SIGINT', done);
        process.on('SIGTERM', done);
      });
      const shared = await openSharedSchedules(opts.store);
      try {
        await runDaemon({
          home: stateHome(),
          cli,
          stop,
          ...(shared ? { shared: shared.port } : {}),
          emit: (event) => {
            if (opts.json) {
              process.stdout.write(`${JSON.stringify(event)}\n`);
              return;
            }
            const { type, at, ...rest } = event;
            const details = Object.entries(rest)
              .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
              .join(' ');
            process.stdout.write(`${at} ${type} ${details}\n`);
          },
        });
      } finally {
        await shared?.close();
      }
    });
}
