import type { Command } from 'commander';

/** Options of `switchyard task new`. */
interface TaskNewOptions {
  workspace?: string;
  dependsOn?: string[];
  files?: string[];
  route: string;
  title?: string;
  force?: boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `switchyard task new <group>/<task>`: scaffolds a PLAN.md that follows the task contract. */
export function registerTask(program: Command): void {
  const task = program
    .command('task')
    .description('Create tasks (agent-task/<group>/<task>/PLAN.md).');
  task
    .command('new')
    .description('Scaffold agent-task/<group>/<task>/PLAN.md, valid under the task contract.')
    .argument('<id>', 'the task id, <group>/<task>')
    .option('--workspace <dir>', 'folder holding agent-task/ (default: found like git)')
    .option('--files <paths...>', 'the write set: workspace files the task may change (required)')
    .option('--depends-on <ids...>', 'tasks that must be archived first (<task> or <group>/<task>)')
    .option('--route <route>', 'catalog route (local-G01…G10, cloud-G01…G10)', 'cloud-G04')
    .option('--title <text>', 'the heading (default: the task id)')
    .addHelpText(
      'after',
      `
Writes front matter (route, depends_on), the Modified Files Summary from --files, and an
Implementation Checklist to fill in; then checks it with the same parser as validate-plan.
The workspace is found like git finds its root (the first folder upward holding agent-task/
or a switchyard config, else the git root); agent-task/ is created there if needed. --files
are relative to the current folder when it is inside the workspace, else to --workspace.

Examples:
  $ switchyard task new api/add-flag --files src/flag.ts src/cli.ts
  $ switchyard task new api/docs --files README.md --depends-on add-flag --route cloud-G08
  $ switchyard task new api/x --files src/x.js --workspace ~/code/api`,
    )
    .action(async (id: string, opts: TaskNewOptions) => taskNew(id, opts));
}

async function taskNew(id: string, opts: TaskNewOptions): Promise<void> {
  const { existsSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { join, relative, resolve, sep } = await import('node:path');
  const core = await import('@switchyard/core');
  const { searchWorkspaceRoot } = await import('@switchyard/utils');
  const tasksLib = await import('@switchyard/tasks');
  const configLib = await import('@switchyard/config');
  const [group, name, ...rest] = id.split('/');
  if (!group || !name || rest.length > 0 || !NAME.test(group) || !NAME.test(name))
    throw new core.SwitchyardError('SY_USAGE', `task id "${id}" is not <group>/<task>.`, {
      hint: 'use letters, digits, ".", "_" and "-", e.g. "api/add-flag"',
    });
  if (!core.isRouteId(opts.route))
    throw new core.SwitchyardError('SY_USAGE', `--route "${opts.route}" is not a route id.`, {
      hint: 'use local-G01…local-G10 or cloud-G01…cloud-G10',
    });
  if (!opts.files?.length)
    throw new core.SwitchyardError('SY_USAGE', 'a task needs a write set: pass --files.', {
      hint: 'list the workspace files the task may change: --files src/a.ts src/b.ts',
    });
  const workspace = (() => {
    if (opts.workspace !== undefined) return resolve(opts.workspace);
    const search = searchWorkspaceRoot(process.cwd(), configLib.hasConfigFile);
    const root = search.root ?? search.gitRoot;
    if (!root)
      throw new core.SwitchyardError(
        'SY_WORKSPACE_NOT_FOUND',
        `no workspace: no agent-task/, switchyard config or git repository in ${process.cwd()} or above.`,
        { hint: 'run it in your repository, or pass --workspace <repository root>' },
      );
    return root;
  })();
  const dir = join(core.agentTaskDir(workspace), group, name);
  const file = join(dir, 'PLAN.md');
  if (existsSync(file))
    throw new core.SwitchyardError('SY_USAGE', `${file} already exists.`, { file });
  // Files named from inside the workspace mean the shell's folder (a subfolder too); from
  // outside it (--workspace elsewhere) they are workspace paths. The plan lists them from the root.
  const fromWorkspace = relative(workspace, process.cwd());
  const inside = fromWorkspace !== '..' && !fromWorkspace.startsWith(`..${sep}`);
  const base = opts.workspace === undefined || inside ? process.cwd() : workspace;
  const files = opts.files.map((f) => relative(workspace, resolve(base, f)));
  const front = [`route: ${opts.route}`];
  if (opts.dependsOn?.length) front.push(`depends_on: [${opts.dependsOn.join(', ')}]`);
  const text = [
    '---',
    ...front,
    '---',
    `# ${opts.title ?? id}`,
    '',
    'What to change and why (the agent reads this).',
    '',
    '## Modified Files Summary',
    '',
    ...files.map((f) => `- ${f}`),
    '',
    '## Implementation Checklist',
    '',
    '- [ ] Describe the first step',
    '',
  ].join('\n');
  // Checked right after writing, with the parser every command uses; removed again if invalid.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { flag: 'wx' });
  const plan = tasksLib.parsePlanFile(file, { file: relative(process.cwd(), file), workspace });
  const errors = plan.problems.filter((p) => p.severity !== 'warning');
  if (errors.length > 0) {
    const { rmSync } = await import('node:fs');
    rmSync(dir, { recursive: true });
    throw new core.SwitchyardError('SY_PLAN_INVALID', `the new plan for ${id} would be invalid.`, {
      problems: errors,
    });
  }
  process.stdout.write(
    `wrote ${relative(process.cwd(), file) || file}\n  next: describe the task and its checklist, then "switchyard run --dry-run"\n`,
  );
}
