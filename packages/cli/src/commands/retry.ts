import type { Command } from 'commander';
// type-only: live-run.js itself is loaded lazily, only for a live run
import type { LiveRunOptions } from '../live-run-options.js';
import { parseMaxParallel } from './run.js';

/** `switchyard retry <group/task>…`: a live run in which only the named blocked tasks are retried. */
export function registerRetry(program: Command): void {
  program
    .command('retry')
    .description(
      'Retry the named blocked tasks (others stay blocked), then run the workspace like `run`.',
    )
    .argument('<tasks...>', 'blocked tasks to retry, as <group>/<task>')
    .option('--workspace <dir>', 'repository root holding agent-task/ (default: current folder)')
    .option('--execution-catalog <file>', 'use this catalog instead of the resolved one')
    .option(
      '--max-parallel <n>',
      'active task stages in the whole workspace (default: config maxParallel, else 3; 0 = unlimited)',
      parseMaxParallel,
    )
    .option('--with <target>', 'run every stage on this catalog target unless a task pins its own')
    .option('--json', 'machine output: JSONL events')
    .option(
      '--store <url>',
      'a postgres:// store shared by several machines: retry there, then work on its backlog (default: SWITCHYARD_STORE, else config `store`)',
    )
    .addHelpText(
      'after',
      `
Each named task gets a fresh failure budget and is retried for the reason it blocked. Its
history stays: earlier attempts (and the catalog revision each ran on) and every target
decision the current catalog still supports. A decision the catalog no longer supports
(the catalog was edited) is made again on the current catalog. \`switchyard status\` lists the
blocked tasks and why; \`run --retry-blocked\` retries all of them.

A task runs the plan the dispatcher admitted when it first ran, whatever its files say later
(an agent may write them). A retry admits the plan files as they are now: edit PLAN.md (a
task that is not blocked too), then name the task here. The run says what that changed.

On a shared store (--store, SWITCHYARD_STORE or config \`store\`) each named task must be
blocked in the shared backlog, whichever machine blocked it: its record in the database gets
the fresh budget and it goes back to the backlog, then this run works on the backlog with
the other machines (as \`run --store\`; events name the machine of each attempt). A task
another machine is running right now is refused with SY_TASK_HELD naming that machine.

Exit codes as for \`switchyard run\`: 0 all archived, 2 invalid input (an unknown task),
3 tasks still blocked (also ones not named here), 1 internal failure, 130 interrupted.

Examples:
  $ switchyard retry api/add-flag
  $ switchyard retry api/add-flag docs/readme --max-parallel 2
  $ switchyard retry api/add-flag --store postgres://sy@db/switchyard`,
    )
    .action(async (tasks: string[], opts: LiveRunOptions) => {
      const { sharedStoreSetting } = await import('../store/resolve-store.js');
      const setting = await sharedStoreSetting({
        ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
        ...(opts.store !== undefined ? { store: opts.store } : {}),
      });
      if (setting) {
        const { retryShared } = await import('../store/resolve-shared.js');
        await retryShared(opts.workspace, setting, tasks, opts);
      }
      process.exitCode = await (await import('../live-run.js')).liveRun({
        ...opts,
        // On a shared store the retry is done above, in the database.
        ...(setting ? {} : { retryTasks: tasks }),
      });
    });
}
