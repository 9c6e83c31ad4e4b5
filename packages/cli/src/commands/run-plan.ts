import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import {
  agentsOf,
  CATALOG_ENV,
  type Catalog,
  type RoutingConfig,
  redTeamCandidates,
  selectCandidates,
} from '@switchyard/catalog';
import {
  hasConfigFile,
  isolationModeOf,
  loadProjectConfig,
  type ProjectConfig,
  resolveCatalog,
  resolveIsolation,
} from '@switchyard/config';
import { type Problem, type SessionYamlPlan, SwitchyardError } from '@switchyard/core';
import {
  checkRenderedPlans,
  choosePlanRun,
  convertMarkdownPlan,
  type MaterializedTask,
  markdownProblem,
  materializePlan,
  type PlanRunChoice,
  planTaskRoutes,
  quoteArgv,
  readPlanText,
  resolveWith,
  type ValidatedPlan,
  validateOrchestratePlan,
} from '@switchyard/tasks';
import { findWorkspaceRoot, searchWorkspaceRoot } from '@switchyard/utils';
import { EXIT } from '../exit-codes.js';
import { printJson, printProblems } from '../output.js';
import { cappedParallel } from '../plan-concurrency.js';
import { inGitRepository } from '../run-isolation.js';
import type { RunOptions } from './run-options.js';

/** Options of `switchyard run <plan>`. */
export interface PlanRunOptions extends RunOptions {
  /** Every agent task ends with a patch artifact; the source is untouched. */
  patchOnly?: boolean;
  /** Run the plan anew (a fresh group) when its latest run finished. */
  again?: boolean;
}

const isError = (p: Problem) => p.severity !== 'warning';

function catalogEnv(): NodeJS.ProcessEnv {
  const value = process.env[CATALOG_ENV];
  return value && !isAbsolute(value)
    ? { ...process.env, [CATALOG_ENV]: resolve(value) }
    : process.env;
}

/** A session's stored plan text, run instead of the file (`switchyard resume`). */
export interface StoredPlanText {
  sessionId: string;
  text: string;
  /** The task group the session ran the plan in (`<plan-id>`, or `<plan-id>.run2`…). */
  group?: string;
}

/**
 * Reads, validates and checks a YAML plan against the catalog and the workspace; `stored`
 * replaces the file's text (a resumed session runs the plan as it started).
 */
async function loadPlan(
  file: string,
  opts: PlanRunOptions,
  stored?: StoredPlanText,
): Promise<{
  plan: ValidatedPlan;
  workspace: string;
  catalog: Catalog;
  routing: RoutingConfig;
  problems: Problem[];
  text: string;
  config: ProjectConfig;
  choice: PlanRunChoice;
  /** The plan file as generated PLAN.md files name it. */
  source: string;
}> {
  const workspace = planWorkspace(opts.workspace);
  const read = stored ? { text: stored.text } : readPlanText(resolve(file), file);
  if ('problem' in read)
    throw new SwitchyardError('SY_YAML_PLAN_INVALID', `cannot read the plan ${file}`, {
      problems: [{ ...read.problem, code: 'SY_YAML_PLAN_INVALID' }],
    });
  const resolved = await resolveCatalog({
    ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    env: catalogEnv(),
    cwd: workspace,
    checkExecutables: false,
  });
  const catalog = resolved.catalog;
  const facts = await planFacts(workspace);
  const validated = validateSource(read.text, file, { catalog, ...facts });
  const { problems } = validated;
  // The plan is known by its content, its runs by their group: the latest run, or (--again,
  // once it finished) a new one. A resumed session keeps the group it ran in.
  const choice = choosePlanRun(workspace, validated.plan.planId, opts.again === true);
  const plan = { ...validated.plan, planId: stored?.group ?? choice.group };
  if (opts.with !== undefined) problems.push(...withProblems(plan, catalog, opts.with));
  // A plan runs its own group: another --task-group would silently be a different run.
  if (
    opts.taskGroup !== undefined &&
    opts.taskGroup !== plan.planId &&
    opts.taskGroup !== validated.plan.planId
  )
    problems.push({
      code: 'SY_USAGE',
      message: `--task-group ${opts.taskGroup} disagrees with the plan, which runs its own group agent-task/${plan.planId}/`,
      hint: `drop --task-group (or give --task-group ${plan.planId}); set \`metadata.id\` in the plan to choose its group`,
      severity: 'error',
    });
  if (!problems.some(isError))
    problems.push(...checkRenderedPlans(plan, workspace, { patchOnly: opts.patchOnly === true }));
  return {
    plan,
    workspace,
    catalog,
    routing: facts.routing,
    problems,
    text: read.text,
    config: facts.config,
    choice: stored?.group
      ? { ...choice, group: stored.group, anew: false, continued: false }
      : choice,
    source: displayPath(workspace, file),
  };
}

/**
 * `with <name>`: a target id, or an agent serving a worker candidate of the route of every
 * agent task that names no backend (the same rule as a task's `backend`).
 */
function withProblems(plan: ValidatedPlan, catalog: Catalog, name: string): Problem[] {
  const found = new Map<string, Problem>();
  const now = new Date();
  const agents = new Set(Object.values(catalog.targets).map((t) => t.agent));
  if (!(name in catalog.targets) && !agents.has(name))
    return [
      {
        code: 'SY_USAGE',
        message: `with "${name}" is neither a target id nor an agent of the catalog`,
        hint: `targets: ${Object.keys(catalog.targets).join(', ')}; agents: ${[...agents].join(', ')}`,
        severity: 'error',
      },
    ];
  for (const task of plan.tasks) {
    if (task.runner === 'local' || task.target !== undefined) continue;
    const named = resolveWith(catalog, name, task.route, now);
    if ('error' in named && !found.has(named.error))
      found.set(named.error, {
        code: 'SY_USAGE',
        message: `${named.error} (task "${task.id}")`,
        hint: named.hint,
        severity: 'error',
      });
  }
  return [...found.values()];
}

/**
 * Where a plan runs: `--workspace`, else the folder found from the current one upward (one
 * holding agent-task/ or a switchyard config), else the git repository's root, else the
 * current folder. Unlike the other commands it needs no agent-task/ yet: the run writes the
 * plan's tasks there (a fresh repository gets the folder).
 */
export function planWorkspace(explicit: string | undefined): string {
  if (explicit !== undefined)
    return findWorkspaceRoot({ explicit, isMarker: hasConfigFile, requireTasks: false });
  const search = searchWorkspaceRoot(process.cwd(), hasConfigFile);
  return search.root ?? search.gitRoot ?? resolve(process.cwd());
}

/** What validation needs from the workspace: the config's routing and the run's isolation. */
interface PlanFacts {
  routing: RoutingConfig;
  isolation: 'worktree' | 'none';
  config: ProjectConfig;
}

/** The routing and isolation a run of the plan in `workspace` would use (nothing is created). */
async function planFacts(workspace: string): Promise<PlanFacts> {
  const { config } = await loadProjectConfig(workspace);
  const mode = isolationModeOf(config.isolation);
  const git = mode === 'none' ? false : await inGitRepository(workspace);
  return { routing: config.routing, isolation: resolveIsolation(mode, git).mode, config };
}

/** A YAML plan, or a legacy markdown task file converted on the fly (problems on its lines). */
function validateSource(
  text: string,
  file: string,
  facts: PlanFacts & { catalog: Catalog },
): { plan: ValidatedPlan; problems: Problem[] } {
  if (!isMarkdown(file, text)) {
    const plan = validateOrchestratePlan(text, { file, ...facts });
    return { plan, problems: [...plan.problems] };
  }
  const converted = convertMarkdownPlan(text, file);
  const plan = validateOrchestratePlan(converted.yaml, { file, ...facts });
  return {
    plan,
    problems: [
      ...converted.problems,
      ...plan.problems.map((p) => markdownProblem(p, converted, file)),
    ],
  };
}

/** A `.md` file, or text with `### Task N:` headings and no `kind:` line. */
export function isMarkdown(file: string, text: string): boolean {
  if (/\.(md|markdown)$/i.test(file)) return true;
  return /^#{2,4}\s+Task\s+\S+\s*:/im.test(text) && !/^kind\s*:/m.test(text);
}

function invalid(file: string, problems: Problem[]): SwitchyardError {
  const errors = problems.filter(isError);
  return new SwitchyardError(
    'SY_YAML_PLAN_INVALID',
    `the plan ${file} has ${errors.length} problem(s); nothing was started`,
    {
      problems,
      hint: 'fix every problem listed, then run again (`--dry-run` checks without running)',
    },
  );
}

/**
 * `switchyard run <plan.yaml> [with <target>]`: validates the whole plan, writes each task
 * as `agent-task/<plan-id>/<task-id>/PLAN.md` under the workspace lock (idempotently), then
 * runs the plan's group on the ordinary dispatcher.
 */
export async function runPlanCommand(
  file: string,
  opts: PlanRunOptions,
  stored?: StoredPlanText,
): Promise<void> {
  if (opts.dryRun) return planDryRun(file, opts);
  const { plan, problems, text, workspace, choice, source } = await loadPlan(file, opts, stored);
  if (problems.some(isError)) throw invalid(file, problems);
  printProblems(problems);
  if (choice.continued && !opts.json)
    process.stdout.write(
      `The latest run of the plan (agent-task/${choice.group}/) is not finished: continuing it (--again starts anew once it finished).\n`,
    );
  // A new run of a structured plan has it reviewed first (advisory; a resume does not).
  if (!stored && opts.reviewPlans !== false)
    await (await import('./run-review-plans.js')).reviewYamlPlan(file, opts, workspace);
  const { liveRun } = await import('../live-run.js');
  process.exitCode = await liveRun({
    ...opts,
    // Found once (a fresh repository has no agent-task/ yet: the run creates it).
    workspace,
    // A structured run serves its monitor unless --no-monitor (seed 003's session monitor).
    monitor: opts.monitor ?? true,
    ...(opts.monitor === undefined ? { monitorByDefault: true } : {}),
    ...(stored
      ? { resumeSession: stored.sessionId }
      : { yamlPlan: sessionYamlPlan(file, text, plan, opts.patchOnly === true) }),
    taskGroup: plan.planId,
    ...(plan.maxConcurrency !== undefined ? { planMaxConcurrency: plan.maxConcurrency } : {}),
    prepare: (workspace) => {
      const written = materializePlan(workspace, plan, {
        patchOnly: opts.patchOnly === true,
        source,
      });
      if (written.problems.length > 0) throw invalid(file, written.problems);
      if (!opts.json) process.stdout.write(materializedLine(plan, written.tasks, choice));
      return written.tasks.some((t) => t.status !== 'done');
    },
  });
}

/** The plan as run, for the session's plan.json. */
function sessionYamlPlan(
  file: string,
  text: string,
  plan: ValidatedPlan,
  patchOnly: boolean,
): SessionYamlPlan {
  const { problems: _problems, ...parsed } = plan;
  return {
    file: resolvedPath(file),
    sha256: sha256(text),
    source: text,
    ...(patchOnly ? { patchOnly } : {}),
    parsed: { ...parsed },
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The plan file as a session keeps it: absolute, symbolic links resolved (any cwd finds it). */
function resolvedPath(file: string): string {
  try {
    return realpathSync(resolve(file));
  } catch {
    return resolve(file);
  }
}

/**
 * How the plan file stands against the text a session stored: a resumed session runs the
 * stored text, and says so when the file was edited or deleted since.
 */
export function planFileDrift(stored: SessionYamlPlan): 'unchanged' | 'edited' | 'deleted' {
  if (!existsSync(stored.file)) return 'deleted';
  const read = readPlanText(stored.file, stored.file);
  if ('problem' in read) return 'edited';
  return sha256(read.text) === stored.sha256 ? 'unchanged' : 'edited';
}

function materializedLine(
  plan: ValidatedPlan,
  tasks: MaterializedTask[],
  choice: PlanRunChoice,
): string {
  const count = (s: MaterializedTask['status']) => tasks.filter((t) => t.status === s).length;
  const parts = (['created', 'updated', 'unchanged', 'done'] as const)
    .filter((s) => count(s) > 0)
    .map((s) => `${count(s)} ${s}`);
  const anew = choice.anew ? ` (run ${choice.run}, anew: earlier runs stay as they are)` : '';
  const head = `Plan ${plan.planId}: ${tasks.length} task(s) in agent-task/${plan.planId}/${anew} (${parts.join(', ')})`;
  if (count('done') !== tasks.length) return `${head}\n`;
  return `${head}\nThe plan has already finished: every task is done (agent-task/archive/${plan.planId}/); nothing to run. \`--again\` runs it anew.\n`;
}

/** A plan file as generated PLAN.md files name it: workspace-relative when inside it. */
function displayPath(workspace: string, file: string): string {
  const absolute = resolve(file);
  const inside = relative(workspace, absolute);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : absolute;
}

/** The plan dry run as one JSON document (schema_version 1). */
export interface PlanDryRunReport {
  schema_version: 1;
  kind: 'plan-dry-run';
  plan: {
    file: string;
    id: string;
    title: string;
    goal: string | null;
    max_concurrency: number | null;
  };
  with: string | null;
  patch_only: boolean;
  tasks: PlanDryRunTask[];
  problems: Problem[];
  summary: { tasks: number; errors: number; warnings: number };
}

/** One task of the plan dry run: how it would run and why that target. */
export interface PlanDryRunTask {
  id: string;
  task_id: string;
  title: string;
  lane: string | null;
  runner: string;
  route: string;
  /** Why that route: PLAN.md's `route`, or the config's routing for complexity/risk. */
  route_why: string;
  complexity: string | null;
  risk: string | null;
  depends_on: string[];
  backend: string | null;
  apply: 'source' | 'patch' | null;
  command: string[] | null;
  shell: boolean;
  review: boolean;
  definition_of_done: { command: string; assertion: string; note: string | null } | null;
  files: string[];
  /** No `files` under worktree isolation: any path of the task's worktree except `.git`. */
  any_write_set: boolean;
  /** What a run would do with its folder: create, update, leave (unchanged) or skip (done). */
  folder: MaterializedTask['status'] | 'refused';
  /** Worker and review: which target and why (backend and `with` choose only the worker). */
  stages: ReturnType<typeof planTaskRoutes>;
  /** A task whose risk asks for a red-team review: its target (null: none can do it). */
  red_team: { target: string | null; candidates: string[] } | null;
}

/** Builds the plan dry-run report (writes nothing). */
export async function buildPlanDryRun(
  file: string,
  opts: PlanRunOptions,
): Promise<PlanDryRunReport> {
  const loaded = await loadPlan(file, opts);
  const { plan, problems } = loaded;
  const valid = !problems.some(isError);
  const folders = valid
    ? await dryMaterialize(loaded, opts)
    : new Map<string, MaterializedTask['status'] | 'refused'>();
  const now = new Date();
  const tasks = plan.tasks.map((t) => planDryRunTask(t, loaded, opts, valid, folders, now));
  const errors = problems.filter(isError).length;
  return {
    schema_version: 1,
    kind: 'plan-dry-run',
    plan: {
      file,
      id: plan.planId,
      title: plan.title,
      goal: plan.goal ?? null,
      max_concurrency: plan.maxConcurrency ?? null,
    },
    with: opts.with ?? null,
    patch_only: opts.patchOnly === true,
    tasks,
    problems,
    summary: { tasks: tasks.length, errors, warnings: problems.length - errors },
  };
}

type LoadedPlan = Awaited<ReturnType<typeof loadPlan>>;

/**
 * What materializing the plan would do to each task's folder (nothing is written), with its
 * problems and the live run's preflight added to the plan's.
 */
async function dryMaterialize(
  { plan, workspace, problems, config, source }: LoadedPlan,
  opts: PlanRunOptions,
): Promise<Map<string, MaterializedTask['status'] | 'refused'>> {
  const folders = new Map<string, MaterializedTask['status'] | 'refused'>();
  const dry = materializePlan(workspace, plan, {
    patchOnly: opts.patchOnly === true,
    dryRun: true,
    source,
  });
  problems.push(...dry.problems);
  for (const t of dry.tasks) folders.set(t.id, t.status);
  problems.push(...(await planPreflight(workspace, config, plan, folders, opts)));
  return folders;
}

/** One task of the report: its routes, its red-team review (a problem when it has none), its folder. */
function planDryRunTask(
  t: ValidatedPlan['tasks'][number],
  { plan, catalog, routing, problems }: LoadedPlan,
  opts: PlanRunOptions,
  valid: boolean,
  folders: ReadonlyMap<string, MaterializedTask['status'] | 'refused'>,
  now: Date,
): PlanDryRunTask {
  const agent = t.runner !== 'local';
  const stages = valid ? planTaskRoutes(catalog, t, opts.with, now) : [];
  const redTeam =
    agent && t.risk !== undefined && routing.risk[t.risk]?.review === 'red-team'
      ? redTeamOf(catalog, plan, t, stages, now)
      : null;
  if (redTeam?.problem) problems.push(redTeam.problem);
  return {
    id: t.id,
    task_id: `${plan.planId}/${t.id}`,
    title: t.title,
    lane: t.lane ?? null,
    runner: t.runner,
    route: t.route,
    route_why: t.routeWhy,
    complexity: t.complexity ?? null,
    risk: t.risk ?? null,
    depends_on: t.effectiveDependsOn,
    backend: t.backend ?? null,
    apply: agent ? (opts.patchOnly ? 'patch' : t.apply) : null,
    command: t.command ?? null,
    shell: t.shell,
    review: agent,
    definition_of_done: t.done ? doneOf(t.done) : null,
    files: t.files ?? [],
    any_write_set: t.anyWriteSet,
    folder: folders.get(t.id) ?? 'refused',
    stages,
    red_team: redTeam ? { target: redTeam.target, candidates: redTeam.candidates } : null,
  };
}

/** The definition of done as the report words it: the command quoted, the assertion as written. */
function doneOf(done: NonNullable<ValidatedPlan['tasks'][number]['done']>) {
  const { assertion } = done;
  return {
    command: quoteArgv(done.argv),
    assertion:
      assertion.kind === 'exit-code'
        ? `exit code ${assertion.code}`
        : assertion.kind === 'stdout-contains'
          ? `stdout contains ${JSON.stringify(assertion.text)}`
          : `stdout matches /${assertion.pattern}/`,
    note: done.note ?? null,
  };
}

/**
 * The red-team review a high-risk task gets (config `routing.risk.<risk>.review`): the review
 * route's candidates of another agent family than the worker's. None is an error of the plan:
 * the live run would pay a worker and a review, then block.
 */
function redTeamOf(
  catalog: Catalog,
  plan: ValidatedPlan,
  task: ValidatedPlan['tasks'][number],
  stages: ReturnType<typeof planTaskRoutes>,
  now: Date,
): { target: string | null; candidates: string[]; problem?: Problem } {
  const worker = stages.find((s) => s.stage === 'worker')?.target ?? undefined;
  const agents = agentsOf(catalog.targets);
  const route = selectCandidates(catalog, 'review', task.route, now).candidates;
  const candidates = redTeamCandidates(route, worker, agents);
  if (candidates.length > 0 || worker === undefined)
    return { target: candidates[0] ?? null, candidates };
  return {
    target: null,
    candidates,
    problem: {
      code: 'SY_YAML_PLAN_INVALID',
      message: `task "${task.id}" (risk: ${task.risk}) needs a red-team review by another agent family than its worker's (${worker}: ${agents.get(worker)}), and review route ${task.route} has none: the run would pay a worker and a review, then block`,
      file: plan.file,
      line: task.position.line,
      column: task.position.column,
      hint: `add a target of another agent to the review candidates of ${task.route}, give the task another backend, or lower its risk`,
      severity: 'error',
    },
  };
}

/** The live run's read-only preflight checks for the plan's agent tasks still to do. */
async function planPreflight(
  workspace: string,
  config: ProjectConfig,
  plan: ValidatedPlan,
  folders: ReadonlyMap<string, MaterializedTask['status'] | 'refused'>,
  opts: PlanRunOptions,
): Promise<Problem[]> {
  const { preflightContext } = await import('../preflight/context.js');
  const { runPreflightChecks } = await import('../preflight/registry.js');
  const { PREFLIGHT_CHECKS } = await import('../preflight/checks.js');
  const tasks = plan.tasks
    .filter((t) => t.runner !== 'local' && folders.get(t.id) !== 'done')
    .map((t) => ({
      id: `${plan.planId}/${t.id}`,
      writeSet: (t.files ?? []).map((path) => ({ path })),
    }));
  const ctx = await preflightContext({
    workspace,
    mode: 'dry-run',
    config,
    tasks,
    maxParallel: cappedParallel(opts.maxParallel ?? config.maxParallel, plan.maxConcurrency),
    targets: [],
    foundProblems: [],
    env: catalogEnv(),
  });
  return runPreflightChecks(ctx, PREFLIGHT_CHECKS);
}

/** `switchyard run <plan> --dry-run`: the plan of routes and why; exit 0, or 2 with problems. */
async function planDryRun(file: string, opts: PlanRunOptions): Promise<void> {
  const report = await buildPlanDryRun(file, opts);
  if (opts.json) printJson(report);
  else process.stdout.write(renderPlanDryRun(report));
  process.exitCode = report.summary.errors > 0 ? EXIT.INVALID_INPUT : EXIT.OK;
}

const FOLDER_TEXT: Record<PlanDryRunTask['folder'], string> = {
  created: 'would be written',
  updated: 'would be rewritten: not started yet',
  unchanged: 'already written, unchanged',
  done: 'already done: skipped',
  refused: 'not written: see the problems',
};

function renderPlanDryRun(r: PlanDryRunReport): string {
  const out: string[] = [
    `Plan ${r.plan.id} (${r.plan.file}): ${r.plan.title}${r.plan.goal ? ` — ${r.plan.goal}` : ''}`,
    `Tasks go to agent-task/${r.plan.id}/<task>/PLAN.md and run on the dispatcher. Worker: a task's backend > with <target or agent> > the route's first candidate; review: its route, never the worker's target while the route has another.`,
  ];
  if (r.with)
    out.push(
      `with ${r.with}: chooses the worker of every agent task without a backend (a target id, or the agent's first worker candidate of the task's route); reviews keep their route`,
    );
  if (r.patch_only)
    out.push('--patch-only: every agent task ends with a patch; the source is untouched');
  for (const t of r.tasks) {
    const after = t.depends_on.length ? `, after ${t.depends_on.join(', ')}` : '';
    const lane = t.lane !== null ? ` [lane ${t.lane}]` : '';
    out.push(
      '',
      `${t.task_id} "${t.title}"${lane}: ${t.runner}${after} (${FOLDER_TEXT[t.folder]})`,
    );
    if (t.command)
      out.push(
        `  command: ${t.shell ? `/bin/sh -c ${JSON.stringify(t.command[0])} (shell: true, as the plan says)` : `${quoteArgv(t.command)} (argv, no shell)`}`,
        `  no agent, no review, no commit: runs in the source workspace; its changes (${t.files.join(', ')}) stay uncommitted there`,
      );
    else
      out.push(
        `  route ${t.route} (${t.route_why}), apply ${t.apply}`,
        `  write set: ${t.any_write_set ? 'any file of its worktree except .git (no `files`; worktree isolation)' : t.files.join(', ')}`,
      );
    for (const s of t.stages)
      if (s.source !== 'local') out.push(`  ${s.stage}: ${s.target ?? '(none)'} — ${s.why}`);
    if (t.red_team)
      out.push(
        `  red-team review: ${t.red_team.target ?? '(none: no review candidate of another agent family)'}`,
      );
    if (t.definition_of_done)
      out.push(
        `  definition of done: ${t.definition_of_done.command} → ${t.definition_of_done.assertion}${t.definition_of_done.note ? ` (${t.definition_of_done.note})` : ''}`,
      );
  }
  if (r.problems.length > 0) {
    out.push('', 'Problems:');
    for (const p of r.problems)
      out.push(
        `  ${p.severity === 'warning' ? 'warning' : 'error'} ${p.code} ${p.file ? `${p.file}:${p.line ?? ''}${p.column ? `:${p.column}` : ''} ` : ''}${p.message}${p.hint ? `\n    hint: ${p.hint}` : ''}${p.fix ? `\n    fix:  ${p.fix}` : ''}`,
      );
  }
  out.push(
    '',
    `${r.summary.tasks} task(s), ${r.summary.errors} error(s), ${r.summary.warnings} warning(s)${r.summary.errors ? ' — nothing would start' : ''}`,
    '',
  );
  return out.join('\n');
}
