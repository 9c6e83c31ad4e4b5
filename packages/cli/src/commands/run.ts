import { SwitchyardError } from '@switchyard/core/errors';
import { type Command, InvalidArgumentError } from 'commander';
import { parsePort } from '../monitor-server.js';
import { addOptions, type OptionRow } from './option-table.js';
import type { RunOptions } from './run-options.js';

export function parseMaxParallel(value: string): number {
  if (!/^\d+$/.test(value))
    throw new InvalidArgumentError('must be a whole number >= 0 (0 = unlimited).');
  return Number(value);
}

/** The options of `switchyard run`, in the order of its help. */
const RUN_OPTIONS: readonly OptionRow[] = [
  [
    '--workspace <dir>',
    'folder holding agent-task/ (default: found from the current folder upward, like git)',
  ],
  ['--execution-catalog <file>', 'use this catalog instead of the resolved one'],
  [
    '--task-group <group>',
    'only admit tasks of agent-task/<group>/ (limits still count the whole workspace)',
  ],
  [
    '--max-parallel <n>',
    'active task stages in the whole workspace (default: config maxParallel, else 3; 0 = unlimited)',
    parseMaxParallel,
  ],
  [
    '--retry-blocked',
    'retry every blocked task in scope for its own reason, keeping its history (`switchyard retry` picks tasks)',
  ],
  [
    '--with <target>',
    'run the worker on this catalog target, or on the first candidate of this agent (e.g. codex), unless a task pins its own; reviews keep their route',
  ],
  ['--json', 'machine output: the dry-run report as one JSON document, a live run as JSONL events'],
  [
    '--store <url>',
    'the state store: "file" (this machine) or a postgres:// URL whose backlog several machines drain together (default: SWITCHYARD_STORE, else config `store`, else "file")',
  ],
  [
    '--monitor',
    'serve the live browser page of the run (a YAML plan run does by default); prints monitor_url with the session',
  ],
  ['--no-monitor', 'a YAML plan run: do not serve the monitor page'],
  ['--port <n>', 'with --monitor: port on 127.0.0.1 (default: a random free port)', parsePort],
  [
    '--dry-run',
    'launch nothing: report catalog, tasks, candidates, readiness, claims and problems',
  ],
  ['--validate-plan <file>', 'check one PLAN.md like `switchyard validate-plan` and exit'],
  [
    '--patch-only',
    'with a YAML plan: every agent task ends with its diff as a patch artifact; the source is untouched',
  ],
  [
    '--again',
    'with a YAML plan that already finished: run it anew (agent-task/<plan-id>.run2/, …); an unfinished run is continued',
  ],
  [
    '--review-plans',
    'first have a review target read the plans (`plan review`); stop with exit 2 on a CRITICAL finding',
  ],
  [
    '--no-review-plans',
    'a YAML plan run: skip the advisory plan review it gets first (findings on stderr, never a stop)',
  ],
];

const RUN_HELP = `
Run --dry-run before the first live run. It reads every task of every group, shows each
task's route and the target every stage would use now (a task's "target" pin, else --with,
else the route's first candidate), dependencies and readiness, write sets and which tasks
are serialized because their write sets share a file, and every problem. Exit 0 when
nothing is wrong, 2 otherwise. --json prints one document (schema_version 1, see the CLI
README).

Examples:
  $ switchyard run --dry-run
  $ switchyard run --dry-run --task-group api --max-parallel 2
  $ switchyard run --dry-run --json --execution-catalog team-catalog.json | jq '.summary'
  $ switchyard run --validate-plan agent-task/api/add-flag/PLAN.md
  $ switchyard run --workspace ~/src/app --max-parallel 4
  $ switchyard run --monitor             # open the printed monitor_url in a browser
  $ switchyard run --store postgres://sy@db/switchyard   # with the other machines' dispatchers

Several machines (--store postgres://…, after \`switchyard store init\`): each machine runs in
its own clone of the repository; the clone's branch and its upstream name the shared backlog.
The run publishes its tasks (the same id and plan is the same task, whoever publishes it),
works on the tasks it takes from the backlog (each under a lease: a machine that dies or
freezes loses its tasks to the others after the lease, and lands nothing afterwards), waits
for the tasks other machines took, writes the archives they finished into its own
agent-task/archive/, and ends like a run on one machine once every task it published is
archived or blocked. Each apply takes the remote branch's turn, fetches, rebases the task's
commit onto the remote tip, runs the definition of done, and pushes fast-forward only.

YAML plans (orchestrate-plan version 1; schema: assets/schema/orchestrate-plan.schema.json):
  The whole plan is validated first (every problem with line:column, exit 2, nothing
  started). Each task becomes agent-task/<plan-id>/<task-id>/PLAN.md (plan id: metadata.id,
  else the file name) and runs on the same dispatcher as any task. Re-running the plan keeps
  tasks already done or unchanged; a changed task that already started is an error. A plan
  is known by its content, not by how its path is typed: re-running a finished plan says so
  and exits 0; --again runs it anew in agent-task/<plan-id>.run2/ (then .run3, …), leaving the
  earlier run's archive and commits as they are (an unfinished run is continued). Lanes
  are levels: a lane's tasks wait for every task of the lanes before it. Worker: a task's
  backend (target id or agent name) > with <target or agent> > the route's first candidate;
  the review keeps its route, never on the worker's target while it has another. Runner
  "local" runs the task's argv command in the workspace (a shell only with shell: true), no
  agent and no review. Without apply_to_source + commit_on_success + rollback_on_failure all
  true (or with --patch-only) an agent task ends with a patch; the source is untouched.
  Before a new run the plan gets an advisory review (\`plan review\`: findings on stderr,
  never a stop; --no-review-plans skips it), and the run serves its monitor (--no-monitor
  skips it). It works in a fresh repository (agent-task/ is created). --json starts with a
  session.started event: session_id, session_dir, plan, monitor_url; the session folder
  keeps plan.json, status.json (every task's state, kept current) and monitor-server.json.
  $ switchyard run plan.yaml --dry-run            # the routes of every task, and why
  $ switchyard run plan.yaml with codex           # the worker of tasks that name no backend
  $ switchyard run plan.yaml --patch-only --json
  $ switchyard run plan.yaml --again              # the plan finished earlier: once more`;

/** `switchyard run`: the dispatcher; `--dry-run` reports what it would do; `--validate-plan` checks one plan. */
export function registerRun(program: Command): void {
  const run = program
    .command('run')
    .description(
      'Run every ready task of the workspace to a reviewed, archived result (or --dry-run first); `run plan.yaml [with <target>]` runs a YAML plan.',
    )
    .argument('[plan]', 'a YAML plan (orchestrate-plan version 1) to run as agent-task/<plan-id>/')
    .argument('[with]', 'the word `with`, then the target for agent tasks without a backend')
    .argument('[target]', 'catalog target id (like --with)');
  addOptions(run, RUN_OPTIONS).addHelpText('after', RUN_HELP).action(runAction);
}

/** `switchyard run [plan [with <target>]]`: a YAML plan, or the workspace's tasks. */
async function runAction(
  plan: string | undefined,
  withWord: string | undefined,
  target: string | undefined,
  opts: RunOptions,
): Promise<void> {
  if (plan !== undefined) return runYamlPlan(plan, withWord, target, opts);
  for (const [flag, given] of [
    ['--patch-only', opts.patchOnly],
    ['--again', opts.again],
  ] as const)
    if (given)
      throw new SwitchyardError(
        'SY_USAGE',
        `${flag} needs a YAML plan: \`switchyard run plan.yaml ${flag}\``,
      );
  if (opts.validatePlan !== undefined) {
    const { validatePlanCommand } = await import('./validate-plan.js');
    return validatePlanCommand(opts.validatePlan, {
      ...(opts.workspace ? { workspace: opts.workspace } : {}),
      ...(opts.json ? { json: true } : {}),
    });
  }
  if (opts.dryRun) return (await import('../dry-run.js')).dryRunCommand(opts);
  if (opts.reviewPlans && !(await (await import('./run-review-plans.js')).reviewPlansFirst(opts)))
    return;
  // The live run: the dispatcher (packages/cli/src/live-run.ts).
  process.exitCode = await (await import('../live-run.js')).liveRun(opts);
}

/** `switchyard run plan.yaml [with <target>]`: the words after the plan checked, then the plan run. */
async function runYamlPlan(
  plan: string,
  withWord: string | undefined,
  target: string | undefined,
  opts: RunOptions,
): Promise<void> {
  if (withWord !== undefined && (withWord !== 'with' || target === undefined))
    throw new SwitchyardError(
      'SY_USAGE',
      `expected \`with <target>\` after the plan, got "${[withWord, target].filter(Boolean).join(' ')}"`,
    );
  if (target !== undefined && opts.with !== undefined && target !== opts.with)
    throw new SwitchyardError(
      'SY_USAGE',
      `\`with ${target}\` and --with ${opts.with} disagree; give one`,
    );
  // A YAML plan is reviewed anyway (advisory; --no-review-plans skips it).
  for (const [flag, given] of [['--validate-plan', opts.validatePlan !== undefined]] as const)
    if (given)
      throw new SwitchyardError(
        'SY_USAGE',
        `${flag} does not apply to a YAML plan (${plan}); nothing was started`,
        { hint: '`switchyard run plan.yaml --dry-run` checks the whole plan; drop the flag' },
      );
  const { runPlanCommand } = await import('./run-plan.js');
  return runPlanCommand(plan, {
    ...opts,
    ...(target !== undefined ? { with: target } : {}),
  });
}
