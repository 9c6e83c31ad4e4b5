import { resolve } from 'node:path';
import type { ResolvedCatalog } from '@switchyard/catalog';
import { applyRouting, DEFAULT_ROUTING, selectCandidates } from '@switchyard/catalog/dry-run';
import type { ProjectConfig } from '@switchyard/config';
import { hasConfigFile, loadProjectConfig, resolveCatalog } from '@switchyard/config';
import type { ClaimRecord, Problem, RouteId, Stage, TaskState } from '@switchyard/core';
// The dry-run subpath: only what this command needs is loaded (not the dispatcher, etc.).
import { STAGES } from '@switchyard/core/dry-run';
import {
  type DryRunReport,
  type DryRunRouting,
  planDryRun,
  probeAttempt,
  slotFreeTasks,
} from '@switchyard/engine/dry-run';
import { type FsReader, openFsReader } from '@switchyard/store-fs/read';
import type { WorkspaceModel } from '@switchyard/tasks';
import { loadWorkspaceAsync, refuseUnjudgeableTests } from '@switchyard/tasks/dry-run';
import { encodeJsonChunks, findWorkspaceRoot } from '@switchyard/utils';
import type { RunOptions } from './commands/run-options.js';
import {
  catalogEnv,
  checkCatalog,
  checkPlugins,
  checkProject,
  problemsOf,
} from './dry-run-checks.js';
import { renderDryRun } from './dry-run-render.js';
import { skipMissingTargets } from './executable-targets.js';
import { EXIT } from './exit-codes.js';
import { agentTypoWarnings } from './known-agents.js';
import type { SandboxCheck } from './sandbox-check.js';

/**
 * Resolves the catalog for the dry run (an invalid one is reported, not thrown). Commands
 * are checked later, like a live run does, against the routes the in-scope tasks use.
 */
async function resolveForDryRun(
  workspace: string,
  opts: RunOptions,
): Promise<ResolvedCatalog | Problem[]> {
  try {
    return await resolveCatalog({
      cwd: workspace,
      env: catalogEnv(),
      checkExecutables: false,
      ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    });
  } catch (error) {
    return problemsOf(error);
  }
}

/** The dry run's routing: the catalog narrowed to installed agents, like a live run. */
function routingFor(
  resolved: ResolvedCatalog | Problem[],
  model: WorkspaceModel,
  opts: RunOptions,
  workspace: string,
): DryRunRouting {
  if (Array.isArray(resolved))
    return { valid: false, problems: resolved, targetIds: new Set(), stages: STAGES };
  const routes = new Set<string>();
  const pinned: { target: string; by: string }[] = [];
  if (opts.with && opts.with in resolved.catalog.targets)
    pinned.push({ target: opts.with, by: '--with' });
  for (const task of model.tasks) {
    if (opts.taskGroup !== undefined && task.group !== opts.taskGroup) continue;
    if (task.target && task.target in resolved.catalog.targets)
      pinned.push({ target: task.target, by: `task ${task.id}` });
    // A pin or `with` chooses the worker; the review (and failover) still use the route.
    if (task.route) routes.add(task.route);
  }
  const checked = skipMissingTargets(
    resolved,
    { routes, pinned },
    { env: catalogEnv(), cwd: workspace },
  );
  const narrowed = checked.resolved;
  return {
    valid: true,
    source: narrowed.source,
    revision: narrowed.revision,
    problems: [
      ...checked.errors,
      ...checked.warnings,
      ...agentTypoWarnings(narrowed.catalog.targets, () => false),
    ],
    targetIds: new Set(Object.keys(narrowed.catalog.targets)),
    agents: new Map(Object.entries(narrowed.catalog.targets).map(([id, t]) => [id, t.agent])),
    stages: STAGES,
    select: (stage, route, at) =>
      selectCandidates(narrowed.catalog, stage as Stage, route as RouteId, at),
  };
}

/**
 * Blocked tasks and tasks with a live attempt, from the dispatcher's per-task state (and the
 * states themselves, for the preflight and the isolation report; undefined when unreadable).
 */
async function readDispatcherState(store: FsReader, problems: Problem[]) {
  const blocked = new Map<string, string>();
  const live = new Set<string>();
  let slotFree = new Set<string>();
  let states: TaskState[] | undefined;
  try {
    states = (await store.tasks.list()).map((entry) => entry.value);
    for (const state of states) {
      if (state.blocked) blocked.set(state.task, state.blocked.reason);
      if (state.attempts.some((a) => a.status !== 'finished' && probeAttempt(a).state === 'live'))
        live.add(state.task);
    }
    // A gate or an archive takes no agent slot in the live run: not here either.
    slotFree = slotFreeTasks(states);
  } catch (error) {
    problems.push(...problemsOf(error));
  }
  return { blocked, live, slotFree, states };
}

/** `SWITCHYARD_PARSE_WORKERS=<n>`: plan parse threads (0 = parse on the main thread). */
function parallelFromEnv(): { workers?: number } {
  const raw = process.env.SWITCHYARD_PARSE_WORKERS;
  if (raw === undefined || !/^\d+$/.test(raw)) return {};
  return { workers: Number(raw) };
}

/** Builds the dry-run report for the options (reads files only; launches nothing). */
export async function buildDryRun(opts: RunOptions, now = new Date()): Promise<DryRunReport> {
  const { report, cacheWritten } = await prepareDryRun(opts, now);
  await cacheWritten;
  return report;
}

/** The project config as the dry run reads it: absent (and its problems) when it does not load. */
interface DryRunConfig {
  problems: Problem[];
  project?: { config: ProjectConfig; file: string | undefined };
}

/** Reads the project config; the plugins it names load as in a live run, so both agree on a broken one. */
async function readDryRunConfig(workspace: string): Promise<DryRunConfig> {
  const problems: Problem[] = [];
  let project: DryRunConfig['project'];
  try {
    const { config, filepath } = await loadProjectConfig(workspace);
    project = { config, file: filepath };
    if (config.plugins.length > 0 && filepath)
      problems.push(...(await checkPlugins(config.plugins, filepath)));
  } catch (error) {
    problems.push(...problemsOf(error));
  }
  return project ? { problems, project } : { problems };
}

/** Each problem once: the config is read here and again by the catalog's resolution. */
function uniqueProblems(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify([p.code, p.file, p.path, p.line, p.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The claims of the workspace's store (none, and a problem, when they cannot be read). */
async function claimsThroughStore(store: FsReader, problems: Problem[]): Promise<ClaimRecord[]> {
  try {
    return await store.claims.list();
  } catch (error) {
    problems.push(...problemsOf(error));
    return [];
  }
}

/** The report, and the plan cache write still going on in the background. */
async function prepareDryRun(
  opts: RunOptions,
  now: Date,
): Promise<{
  report: DryRunReport;
  cacheWritten: Promise<void>;
  sandbox?: SandboxCheck | undefined;
  states?: readonly TaskState[] | undefined;
}> {
  const workspace = findWorkspaceRoot({
    ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
    isMarker: hasConfigFile,
  });
  // Plans parse in worker threads (large workspaces) while the catalog and state are read.
  const model = loadWorkspaceAsync(workspace, { cache: true, parallel: parallelFromEnv() });
  // An early failure below must not leave the load's rejection unobserved.
  model.catch(() => {});
  const { problems: early, project } = await readDryRunConfig(workspace);
  const config = project?.config;
  const resolvedCatalog = await resolveForDryRun(workspace, opts);
  const resolved = Array.isArray(resolvedCatalog) ? undefined : resolvedCatalog;
  const loaded = await model;
  // PLAN `complexity:` / `risk:` become a route (and review mode) by the config's routing.
  for (const task of loaded.tasks) {
    applyRouting(task, config?.routing ?? DEFAULT_ROUTING);
    refuseUnjudgeableTests(task, config?.gates ?? []);
  }
  const routing = routingFor(resolvedCatalog, loaded, opts, workspace);
  const problems = routing.problems;
  problems.splice(0, problems.length, ...uniqueProblems([...early, ...problems]));
  // The store opened for reading: nothing under the state folder is created or changed.
  const store = openFsReader({ workspace });
  const claims = await claimsThroughStore(store, problems);
  let sandbox: SandboxCheck | undefined;
  if (resolved) {
    const checked = await checkCatalog(resolved, routing, workspace, config);
    problems.push(...checked.problems);
    sandbox = checked.sandbox;
  }
  const dispatcher = await readDispatcherState(store, problems);
  const configMax = config?.maxParallel;
  // The checks a live run makes before starting anything, except those that run commands.
  if (project)
    problems.push(
      ...(await checkProject(
        workspace,
        resolved,
        project,
        loaded,
        opts,
        configMax ?? 3,
        dispatcher.states ?? [],
      )),
    );
  const report = planDryRun({
    blocked: dispatcher.blocked,
    liveAttempts: dispatcher.live,
    slotFree: dispatcher.slotFree,
    model: loaded,
    routing,
    ...(opts.taskGroup !== undefined ? { taskGroup: opts.taskGroup } : {}),
    ...(opts.with !== undefined ? { withTarget: opts.with } : {}),
    maxParallel: opts.maxParallel ?? configMax ?? 3,
    retryBlocked: opts.retryBlocked ?? false,
    claims,
    now,
  });
  return { report, cacheWritten: loaded.cacheWritten, sandbox, states: dispatcher.states };
}

/** `switchyard run --dry-run`: prints the report; exit 0 when nothing is wrong, else 2. */
export async function dryRunCommand(opts: RunOptions): Promise<void> {
  const { report, cacheWritten, sandbox, states } = await prepareDryRun(opts, new Date());
  const isolation = await dryRunIsolation(report.workspace, states);
  const sandboxFacts = sandbox && sandboxSummary(sandbox);
  // Compact: a 10,000-task report is ~15 MB pretty-printed; pipe through `jq` to read it.
  if (opts.json) {
    // Written in pieces (stdout to a file or pipe is written synchronously).
    encodeJsonChunks(
      {
        ...report,
        ...(isolation ? { isolation } : {}),
        ...(sandboxFacts ? { sandbox: sandboxFacts } : {}),
      },
      (chunk) => process.stdout.write(chunk),
    );
    process.stdout.write('\n');
  } else {
    process.stdout.write(renderDryRun(report));
    if (isolation) {
      const { renderIsolation } = await import('./isolation-report.js');
      process.stdout.write(renderIsolation(isolation));
    }
    if (sandboxFacts) process.stdout.write(renderSandbox(sandboxFacts));
  }
  process.exitCode = report.summary.errors > 0 ? EXIT.INVALID_INPUT : EXIT.OK;
  await cacheWritten; // written while the report was printed
}

/** What the dry run says of the sandbox: which targets run in it, and with which bwrap. */
function sandboxSummary(check: SandboxCheck) {
  if (check.sandboxed.length === 0) return undefined;
  return {
    mode: 'bwrap' as const,
    targets: check.sandboxed,
    ...(check.command ? { command: check.command } : {}),
    ...(check.version ? { version: check.version } : {}),
    usable: check.command !== undefined,
  };
}

function renderSandbox(facts: NonNullable<ReturnType<typeof sandboxSummary>>): string {
  const how = facts.usable
    ? `${facts.version ?? 'bwrap'} at ${facts.command}`
    : 'NOT usable here (see the problem above)';
  return `\nSandbox: bwrap for ${facts.targets.join(', ')} — ${how}; each attempt sees the file system read-only but its worktree, attempt and task folders, a private /tmp and its agent's own folders; credential folders hidden\n`;
}

/** Worktree isolation as the run would use it (mode, warning, worktrees, apply queue); read only. */
async function dryRunIsolation(workspace: string, states: readonly TaskState[] | undefined) {
  try {
    const { gatherIsolation } = await import('./isolation-report.js');
    const config = await loadProjectConfig(workspace).then(
      (c) => c.config,
      () => undefined,
    );
    return await gatherIsolation(workspace, config?.isolation, states);
  } catch {
    // A broken repository is reported by the run itself; the dry run's report stands.
    return undefined;
  }
}
