import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyRouting,
  CATALOG_ENV,
  type CatalogTarget,
  type ResolvedCatalog,
  selectCandidates,
} from '@switchyard/catalog';
import { loadProjectConfig, type ProjectConfig, resolveCatalog } from '@switchyard/config';
import {
  isRouteId,
  type Problem,
  type RouteId,
  type RunnerPlugin,
  STAGES,
  SwitchyardError,
} from '@switchyard/core';
import { loadPromptTemplates } from '@switchyard/engine';
import { loadPlugins, PluginSet } from '@switchyard/runner-kit';
import { loadWorkspace, resolveWith, type WorkspaceModel } from '@switchyard/tasks';
import { assetPath } from '@switchyard/utils';
import { BUILTIN_PLUGINS } from './builtin-plugins.js';
import { skipMissingTargets } from './executable-targets.js';
import { agentTypoWarnings } from './known-agents.js';
import type { LiveRunOptions } from './live-run-options.js';
import { printProblems } from './output.js';
import { permittedCatalog } from './permissions.js';
import { checkSandbox, type SandboxCheck } from './sandbox-check.js';

/** What a live run resolved before any check runs or anything starts. */
export interface RunSetup {
  config: ProjectConfig;
  /** The environment with AGENT_TASK_EXECUTION_CATALOG made absolute. */
  env: NodeJS.ProcessEnv;
  model: WorkspaceModel;
  /** The routes and pinned targets of the in-scope tasks. */
  scope: RunScope;
  /** The catalog the run uses: targets without an installed command skipped, permissions applied. */
  catalog: ResolvedCatalog;
  plugins: PluginSet;
  sandbox: SandboxCheck;
  prompts: ReturnType<typeof loadPromptTemplates>;
  /** Problems found while resolving, reported with the preflight checks' own. */
  foundProblems: Problem[];
}

/** The routes and pins of the in-scope tasks. */
export type RunScope = ReturnType<typeof scopeOf>;

/**
 * Project config, catalog, tasks in scope, plugins, sandbox and prompts of a run, in that order;
 * warnings are printed as they are found, errors thrown (nothing is launched).
 */
export async function prepareRun(workspace: string, opts: LiveRunOptions): Promise<RunSetup> {
  const { config, filepath } = await loadProjectConfig(workspace);
  const configDir = filepath ? dirname(filepath) : undefined;
  const env = absoluteCatalogEnv(process.env);
  // Commands are checked below, per route in use: a missing agent CLI only skips its targets.
  const written = await resolveCatalog({
    ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    env,
    cwd: workspace,
    checkExecutables: false,
  });
  printProblems(written.warnings ?? []);
  const model = loadWorkspace(workspace);
  for (const task of model.tasks) applyRouting(task, config.routing);
  const fixupTarget = config.review.fixupTarget;
  checkFixupTarget(fixupTarget, written, filepath);
  const scope = scopeOf(model, opts, written, fixupTarget);
  // A route with no installed candidate is reported with the other preflight problems.
  const checked = skipMissingTargets(written, scope, { env, cwd: workspace });
  printProblems(checked.warnings);
  const loaded = await loadPlugins({
    entries: config.plugins,
    ...(configDir ? { configDir, configFile: filepath } : {}),
    fallbackDir: dirname(fileURLToPath(import.meta.url)),
    builtins: BUILTIN_PLUGINS,
  });
  const plugins = new PluginSet(loaded);
  // Targets' `permissions` become their CLIs' flags, as the agents' plugins know them.
  const permitted = permittedCatalog(checked.resolved, plugins);
  const catalog = permitted.resolved;
  // Before anything starts: a sandboxed target needs a bwrap that works here.
  const sandbox = await checkSandbox({
    config,
    catalogTargets: Object.keys(written.catalog.targets),
    targets: usedTargets(catalog, scope).map(([id]) => id),
  });
  sandbox.problems.push(...sandboxRunnerProblems(sandbox.sandboxed, catalog, plugins));
  printProblems(
    agentTypoWarnings(catalog.catalog.targets, (agent) =>
      plugins.classifiersFor(agent).some((c) => c.agents !== '*'),
    ),
  );
  const prompts = loadPromptTemplates({
    templatesDir: assetPath('prompts'),
    overrides: config.prompts,
    ...(configDir ? { configDir } : {}),
    ...(filepath ? { configFile: filepath } : {}),
  });
  const foundProblems = [...checked.errors, ...permitted.problems, ...sandbox.problems];
  return { config, env, model, scope, catalog, plugins, sandbox, prompts, foundProblems };
}

/** `review.fixupTarget` must name a target of the catalog. */
function checkFixupTarget(
  fixupTarget: string | undefined,
  written: ResolvedCatalog,
  filepath: string | undefined,
): void {
  if (fixupTarget !== undefined && !(fixupTarget in written.catalog.targets))
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `review.fixupTarget names target "${fixupTarget}", which the catalog does not define.`,
      {
        ...(filepath ? { file: filepath } : {}),
        hint: `Name one of the catalog's targets (${Object.keys(written.catalog.targets).join(', ')}), or remove review.fixupTarget to keep MINOR findings as accepted notes.`,
      },
    );
}

/** Sandboxed targets whose runner plugin cannot start an agent in a sandbox. */
function sandboxRunnerProblems(
  sandboxed: readonly string[],
  catalog: ResolvedCatalog,
  plugins: PluginSet,
): Problem[] {
  return sandboxed.flatMap((id) => {
    const runtime = catalog.catalog.targets[id]?.runtime;
    if (!runtime) return [];
    let runner: RunnerPlugin;
    try {
      runner = plugins.runnerFor(runtime.output_format, {
        nativeSession: runtime.native_session_monitor !== undefined,
      });
    } catch {
      runner = plugins.runnerFor(runtime.output_format);
    }
    if (runner.sandbox === true) return [];
    return [
      {
        code: 'SY_SANDBOX_UNAVAILABLE' as const,
        severity: 'error' as const,
        message: `target ${id} is to run sandboxed, but its runner plugin ${runner.meta.name} cannot start an agent in a sandbox`,
        hint: `use a runner built on @switchyard/runner-text (createRunner), or set "sandboxTargets": { "${id}": "none" }`,
      },
    ];
  });
}

/** AGENT_TASK_EXECUTION_CATALOG is relative to where the user runs the command. */
function absoluteCatalogEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const value = env[CATALOG_ENV];
  return value && !isAbsolute(value) ? { ...env, [CATALOG_ENV]: resolve(value) } : env;
}

/**
 * The routes and pins of the in-scope tasks; an unknown --task-group is an error, and so is a
 * `with <name>` that is neither a target id nor an agent serving a worker candidate of every
 * in-scope route (nothing is launched). A pin or `with` chooses the worker: the review (and
 * the worker's failover) still use every candidate of the task's route.
 */
function scopeOf(
  model: WorkspaceModel,
  opts: LiveRunOptions,
  resolved: ResolvedCatalog,
  fixupTarget?: string,
) {
  if (opts.taskGroup !== undefined && !model.groups.includes(opts.taskGroup))
    throw new SwitchyardError(
      'SY_UNKNOWN_GROUP',
      `--task-group "${opts.taskGroup}": no such group under agent-task/.`,
      { hint: `Known groups: ${model.groups.join(', ') || '(none)'}.` },
    );
  const routes = new Set<RouteId>();
  const pinned: { target: string; by: string }[] = [];
  if (fixupTarget) pinned.push({ target: fixupTarget, by: 'review.fixupTarget' });
  const withErrors = new Map<string, { error: string; hint: string }>();
  const now = new Date();
  for (const task of model.tasks) {
    if (opts.taskGroup && task.group !== opts.taskGroup) continue;
    if (task.target) pinned.push({ target: task.target, by: `task ${task.id}` });
    if (!task.route || !isRouteId(task.route)) continue;
    routes.add(task.route);
    if (opts.with === undefined || task.target) continue;
    const named = resolveWith(resolved.catalog, opts.with, task.route, now);
    if ('target' in named) pinned.push({ target: named.target, by: '--with' });
    else withErrors.set(named.error, named);
  }
  if (opts.with !== undefined && !(opts.with in resolved.catalog.targets) && routes.size === 0) {
    const agents = new Set(Object.values(resolved.catalog.targets).map((t) => t.agent));
    if (!agents.has(opts.with))
      withErrors.set('unknown', {
        error: `with "${opts.with}" is neither a target id nor an agent of the catalog`,
        hint: `targets: ${Object.keys(resolved.catalog.targets).join(', ')}; agents: ${[...agents].join(', ')}`,
      });
  }
  if (withErrors.size > 0) {
    const [first] = withErrors.values();
    throw new SwitchyardError('SY_USAGE', `--with: ${first!.error}; nothing was launched.`, {
      hint: first!.hint,
      problems: [...withErrors.values()].map((e) => ({
        code: 'SY_USAGE' as const,
        message: e.error,
        hint: e.hint,
        severity: 'error' as const,
      })),
    });
  }
  return { routes, pinned };
}

/** Targets the in-scope tasks can reach now (pins, --with, every candidate of their routes). */
export function usedTargets(catalog: ResolvedCatalog, scope: RunScope): [string, CatalogTarget][] {
  const ids = new Set<string>(scope.pinned.map((p) => p.target));
  const now = new Date();
  for (const route of scope.routes) {
    for (const stage of STAGES) {
      for (const id of selectCandidates(catalog.catalog, stage, route, now).candidates) ids.add(id);
    }
  }
  return [...ids].flatMap((id) => {
    const target = catalog.catalog.targets[id];
    return target ? [[id, target] as [string, CatalogTarget]] : [];
  });
}
