import type { Command } from 'commander';
import type { ResolveOptions } from './resolve-run.js';

const RESOLVE_HELP = `
A task that blocks (its failure budget spent, credentials rejected, the catalog changed…)
is escalated: agent-task/.switchyard/escalations/<group>/<task>.failure-bundle.json says
what happened (failure code and class, attempts, definition of done, output tails,
evidence paths, the tasks it holds up) and <task>.interview-request.json asks a question.
\`switchyard status\` lists the open escalations until they are resolved here.

--retry  the task becomes runnable again with a fresh failure budget; its attempts and
         evidence stay. The next \`switchyard run\` (or \`resume\`) runs it.
--skip   the escalation closes but the task stays blocked, and so do the tasks that depend
         on it: they never got what they depend on. Archive the task by hand or remove
         the dependency to let them run; \`switchyard retry\` still retries it later.
--done   you archived the task yourself (its folder, with complete.log, is in
         agent-task/archive/<group>/<task>): it is recorded as complete and its
         dependents may run. A run never counts an archive entry as done on its own,
         since an agent can write one; it reports it and exits 3 until you decide.

Takes the workspace lock, so it refuses while a run is going (exit 1): stop it first.

On a shared store (--store, SWITCHYARD_STORE or config \`store\`) the answer changes the
task's record in the database, whichever machine blocked it, under the same rules; a
retried task goes back to the backlog and a dispatcher of any machine takes it. A task
another machine is running right now (its lease is live) is refused with SY_TASK_HELD,
naming that machine (exit 1). --done needs the hand-made archive of one clone: it is not
offered on a shared store. --json adds "machine": the machine that last ran the task.

Exit codes: 0 resolved, 1 internal failure or the lock (or the task's lease) is held, 2 an
unknown task, a task that is not blocked, bad flags.

Examples:
  $ switchyard status                          # lists open escalations
  $ switchyard resolve api/add-flag --retry && switchyard run
  $ switchyard resolve docs/readme --skip
  $ switchyard resolve docs/intro --done
  $ switchyard resolve api/add-flag --retry --store postgres://sy@db/switchyard`;

/** `switchyard resolve <group>/<task> --retry|--skip|--done`: a human answers an escalation. */
export function registerResolve(program: Command): void {
  program
    .command('resolve')
    .description(
      "Answer a blocked task's escalation: --retry it with a fresh budget, --skip it, or record an archived task --done.",
    )
    .argument('<task>', 'the escalated task, as <group>/<task>')
    .option(
      '--retry',
      'the cause is fixed: the task runs again on the next run, with a fresh failure budget',
    )
    .option(
      '--skip',
      'leave the task blocked and close its escalation (its dependents keep waiting)',
    )
    .option(
      '--done',
      'you archived the task yourself: record it as complete (its folder and complete.log are in agent-task/archive/)',
    )
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward)',
    )
    .option(
      '--execution-catalog <file>',
      'the catalog the next run uses (a decision it no longer supports is made again)',
    )
    .option('--json', 'print the outcome as one JSON document')
    .option(
      '--store <url>',
      'a postgres:// store shared by several machines: answer in its database (default: SWITCHYARD_STORE, else config `store`)',
    )
    .addHelpText('after', RESOLVE_HELP)
    .action(async (task: string, opts: ResolveOptions) =>
      (await import('./resolve-run.js')).resolveCommand(task, opts),
    );
}
