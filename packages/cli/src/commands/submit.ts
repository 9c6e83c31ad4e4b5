import type { Command } from 'commander';

/** Options of `switchyard submit`. */
export interface SubmitOptions {
  store?: string;
  workspace?: string;
  taskGroup?: string;
  json?: boolean;
}

const SUBMIT_HELP = `
For scripts and CI. The backlog is the one of the checked-out branch's upstream (every clone
of the repository shares it). A task is its id and the SHA-256 of its plan files: publishing
the same task again changes nothing ("already there"); another plan under an id already
published is SY_BACKLOG_CONFLICT and nothing is published. Invalid plans in scope are
SY_PLAN_INVALID, nothing published. Exit 0 published (or already there), 2 invalid input,
1 the store cannot be reached.

Examples:
  $ switchyard submit --store postgres://sy@db/switchyard
  $ SWITCHYARD_STORE=postgres://sy@db/switchyard switchyard submit --task-group api --json`;

/** `switchyard submit`: publish the workspace's tasks to the shared backlog and exit. */
export function registerSubmit(program: Command): void {
  program
    .command('submit')
    .description(
      "Publish the workspace's tasks to a shared (PostgreSQL) backlog and exit; dispatchers on any machine (`switchyard run --store`) work on them.",
    )
    .option(
      '--store <url>',
      'the postgres:// store (default: SWITCHYARD_STORE, else config `store`)',
    )
    .option(
      '--workspace <dir>',
      'folder holding agent-task/ (default: found from the current folder upward, like git)',
    )
    .option('--task-group <group>', 'only the tasks of agent-task/<group>/')
    .option('--json', 'print { published, existing, scope } as one JSON document')
    .addHelpText('after', SUBMIT_HELP)
    .action(async (opts: SubmitOptions) => {
      const core = await import('@switchyard/core');
      const { findWorkspaceRoot } = await import('@switchyard/utils');
      const tasksLib = await import('@switchyard/tasks');
      const configLib = await import('@switchyard/config');
      const workspace = findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: configLib.hasConfigFile,
      });
      const { resolveStore } = await import('../store/resolve-store.js');
      const setting = await resolveStore({
        workspace,
        ...(opts.store !== undefined ? { store: opts.store } : {}),
      });
      if (setting.kind !== 'postgres')
        throw new core.SwitchyardError(
          'SY_USAGE',
          'switchyard submit publishes to a shared store, and none is selected (the file store is this machine’s).',
          {
            hint: 'Name one: --store postgres://USER@HOST/DATABASE, SWITCHYARD_STORE, or config `store`.',
          },
        );
      const model = tasksLib.loadWorkspace(workspace);
      if (opts.taskGroup !== undefined && !model.groups.includes(opts.taskGroup))
        throw new core.SwitchyardError(
          'SY_UNKNOWN_GROUP',
          `--task-group "${opts.taskGroup}": no such group under agent-task/.`,
          { hint: `Known groups: ${model.groups.join(', ') || '(none)'}.` },
        );
      const problems = model.tasks
        .filter((t) => !opts.taskGroup || t.group === opts.taskGroup)
        .flatMap((t) => t.problems.filter((p) => p.severity !== 'warning'));
      if (problems.length > 0)
        throw new core.SwitchyardError(
          'SY_PLAN_INVALID',
          `${problems.length} problem(s) in the task plans; nothing was published.`,
          {
            problems,
            hint: 'Fix every listed problem (`switchyard validate-plan <PLAN.md>`), then submit again.',
          },
        );
      const { openSharedStore, publishTasks } = await import('../store/shared-backlog.js');
      const shared = await openSharedStore(workspace, setting);
      try {
        const { hostname } = await import('node:os');
        const counts = await publishTasks(
          shared,
          model.tasks,
          opts.taskGroup,
          `${hostname()}/${process.pid}/submit`,
        );
        if (opts.json) {
          const { printJson } = await import('../output.js');
          printJson({ ...counts, scope: shared.scope, store: shared.store.location });
        } else
          process.stdout.write(
            `backlog ${shared.scope} on ${shared.store.location}: ${counts.published} task(s) published, ${counts.existing} already there\n`,
          );
      } finally {
        await shared.store.close();
      }
    });
}
