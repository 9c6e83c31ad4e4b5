import type { Command } from 'commander';
import type { WorkerOptions } from '../store/worker-loop.js';
import { parseMaxParallel } from './run.js';

/** `switchyard worker`: a dispatcher on the shared backlog of the clone it stands in. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'Work on the shared (PostgreSQL) backlog of the repository this clone belongs to, with the other machines, until SIGINT/SIGTERM (or --until-idle).',
    )
    .option(
      '--store <url>',
      'the postgres:// store (default: SWITCHYARD_STORE, else config `store`)',
    )
    .option(
      '--workspace <dir>',
      'the clone (default: found from the current folder upward, like git)',
    )
    .option('--execution-catalog <file>', 'use this catalog instead of the resolved one')
    .option(
      '--max-parallel <n>',
      'active task stages on this machine (0 = unlimited)',
      parseMaxParallel,
    )
    .option(
      '--until-idle',
      'exit once no task of the backlog is left open (instead of waiting for more)',
    )
    .option('--json', 'JSONL events, as `run --json`')
    .addHelpText(
      'after',
      `
The backlog is the one of the checked-out branch's upstream (\`switchyard submit\` and
\`switchyard run --store\` publish to it from any clone). Each open task this clone has no
folder of is written to agent-task/<group>/<task>/ from the plans its publisher stored, then
the dispatcher runs as \`switchyard run --store\` does: it takes tasks, lands them on the
remote branch, and writes the archives of every machine into agent-task/archive/. Without
--until-idle it then waits for new tasks (it looks every few seconds) until SIGINT/SIGTERM.
Exit codes as \`run\`: 0 every task archived, 3 some blocked, 130 interrupted.

Examples:
  $ switchyard worker --store postgres://sy@db/switchyard
  $ switchyard worker --until-idle --max-parallel 2`,
    )
    .action(async (opts: WorkerOptions) => {
      process.exitCode = await (await import('../store/worker-loop.js')).runWorker(opts);
    });
}
