import type { Command } from 'commander';
// type-only: live-run.js itself is loaded lazily, only for a live run
import type { LiveRunOptions } from '../live-run.js';
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

Exit codes as for \`switchyard run\`: 0 all archived, 2 invalid input (an unknown task),
3 tasks still blocked (also ones not named here), 1 internal failure, 130 interrupted.

Examples:
  $ switchyard retry api/add-flag
  $ switchyard retry api/add-flag docs/readme --max-parallel 2`,
    )
    .action(async (tasks: string[], opts: LiveRunOptions) => {
      process.exitCode = await (await import('../live-run.js')).liveRun({
        ...opts,
        retryTasks: tasks,
      });
    });
}
