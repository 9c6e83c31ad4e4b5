import type { Command } from 'commander';
import type { ScheduleOptions } from './schedule-add.js';

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

/**
 * `schedule`, `unschedule`, `schedules` and `daemon`: timed, unattended runs. Implementations
 * load lazily so `switchyard --help` stays fast.
 */
export function registerSchedule(program: Command): void {
  registerScheduleAdd(program);
  registerUnschedule(program);
  registerSchedules(program);
  registerDaemon(program);
}

/** `switchyard schedule <plan-or-workspace> --cron …`. */
function registerScheduleAdd(program: Command): void {
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
    .action(async (target: string, runArgs: string[], opts: ScheduleOptions) =>
      (await import('./schedule-add.js')).scheduleAdd(target, runArgs, opts),
    );
}

/** `switchyard unschedule <id-or-plan>`. */
function registerUnschedule(program: Command): void {
  program
    .command('unschedule')
    .description('Remove schedules, by id or by the plan or workspace they run.')
    .argument(
      '<id-or-plan>',
      'a schedule id (see `switchyard schedules`), or a plan file / workspace',
    )
    .option(...STORE_FLAG)
    .addHelpText('after', `${STATE_HELP}\nExit codes: 0 removed, 2 nothing matched.`)
    .action(async (key: string, opts: { store?: string }) =>
      (await import('./schedule-remove.js')).scheduleRemove(key, opts),
    );
}

/** `switchyard schedules`. */
function registerSchedules(program: Command): void {
  program
    .command('schedules')
    .description('List schedules with their next run, last run, last exit code and missed runs.')
    .option('--json', 'print one JSON document')
    .option(...STORE_FLAG)
    .addHelpText('after', STATE_HELP)
    .action(async (opts: { json?: boolean; store?: string }) =>
      (await import('./schedule-list.js')).scheduleList(opts),
    );
}

/** `switchyard daemon`. */
function registerDaemon(program: Command): void {
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
    .action(async (opts: { printUnit?: boolean; json?: boolean; store?: string }) =>
      (await import('./schedule-daemon.js')).scheduleDaemon(opts),
    );
}
