import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResolvedCatalog } from '@switchyard/catalog';
import { CATALOG_ENV } from '@switchyard/catalog/dry-run';
import type { ProjectConfig } from '@switchyard/config';
import type { Problem, TaskState } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';
import type { DryRunRouting } from '@switchyard/engine/dry-run';
import type { WorkspaceModel } from '@switchyard/tasks';
import type { RunOptions } from './commands/run-options.js';
import { isUnknownAgent } from './known-agents.js';
import { checkSandbox, type SandboxCheck } from './sandbox-check.js';

// The checks a live run makes before it starts anything, made by the dry run without running
// an agent or a project command, and the problem form they all report in.

/** A switchyard error's problems (itself as one when it lists none); any other error is thrown. */
export const problemsOf = (error: unknown): Problem[] => {
  if (!SwitchyardError.is(error)) throw error;
  if (error.problems.length > 0) return error.problems;
  return [
    {
      code: error.code,
      message: error.message,
      severity: 'error',
      ...(error.file ? { file: error.file } : {}),
      ...(error.line ? { line: error.line } : {}),
      ...(error.path ? { path: error.path } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
    },
  ];
};

/** The environment for catalog resolution: relative catalog paths mean the shell's folder. */
export function catalogEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const fromEnv = env[CATALOG_ENV];
  if (fromEnv && !isAbsolute(fromEnv)) env[CATALOG_ENV] = resolve(fromEnv);
  return env;
}

/** Loads the config's plugins (only code the config names); a failure is a problem. */
export async function checkPlugins(
  entries: Parameters<typeof import('@switchyard/runner-kit').loadPlugins>[0]['entries'],
  configFile: string,
): Promise<Problem[]> {
  const kit = await import('@switchyard/runner-kit');
  const { BUILTIN_PLUGINS } = await import('./builtin-plugins.js');
  try {
    const loaded = await kit.loadPlugins({
      entries,
      configDir: dirname(configFile),
      configFile,
      fallbackDir: dirname(fileURLToPath(import.meta.url)),
      builtins: BUILTIN_PLUGINS,
    });
    const set = new kit.PluginSet(loaded);
    await set.dispose();
    return [];
  } catch (error) {
    return problemsOf(error);
  }
}

/**
 * Warnings for agent CLIs whose version is outside their classifiers' verified release lines
 * (only the built-in classifiers' lines; only CLIs of those agents are asked for `--version`).
 */
async function checkAgentVersions(
  resolved: ResolvedCatalog,
  routing: DryRunRouting,
  workspace: string,
): Promise<Problem[]> {
  const targets = Object.entries(resolved.catalog.targets).filter(([id]) =>
    routing.targetIds.has(id),
  );
  // Nothing to ask (and nothing more to load) when no target is a known agent CLI.
  if (targets.every(([, t]) => isUnknownAgent(t.agent))) return [];
  const { agentsWithVerifiedLines, probeAgentVersions, versionWarnings } = await import(
    './agent-versions.js'
  );
  const { builtinClassifiers } = await import('./builtin-classifiers.js');
  const classifiers = await builtinClassifiers();
  const agents = agentsWithVerifiedLines(classifiers);
  if (!targets.some(([, t]) => agents.has(t.agent))) return [];
  const versions = await probeAgentVersions(targets, agents, { cwd: workspace, env: catalogEnv() });
  return versionWarnings(versions, classifiers);
}

/**
 * The catalog's checks: agent CLI versions, then (when the config sandboxes targets) a
 * working bwrap, tried as the run would.
 */
export async function checkCatalog(
  resolved: ResolvedCatalog,
  routing: DryRunRouting,
  workspace: string,
  config: ProjectConfig | undefined,
): Promise<{ problems: Problem[]; sandbox?: SandboxCheck }> {
  const problems = routing.valid ? await checkAgentVersions(resolved, routing, workspace) : [];
  if (!config) return { problems };
  const sandbox = await checkSandbox({
    config: { sandbox: config.sandbox, sandboxTargets: config.sandboxTargets },
    catalogTargets: Object.keys(resolved.catalog.targets),
    targets: [...routing.targetIds],
    version: true,
  });
  return { problems: [...problems, ...sandbox.problems], sandbox };
}

/** The project's checks: targets' `permissions` (through its agents' plugins), then the preflight. */
export async function checkProject(
  workspace: string,
  resolved: ResolvedCatalog | undefined,
  project: { config: ProjectConfig; file: string | undefined },
  model: WorkspaceModel,
  opts: RunOptions,
  configMax: number,
  states: readonly TaskState[],
): Promise<Problem[]> {
  const problems: Problem[] = [];
  // Targets' `permissions` need a plugin of their agent that knows the CLI's flags.
  if (resolved) {
    const { permittedWithProjectPlugins } = await import('./permissions.js');
    try {
      const permitted = await permittedWithProjectPlugins(resolved, project.config, project.file);
      problems.push(...permitted.problems);
    } catch {
      // A plugin that does not load is reported above (checkPlugins), once.
    }
  }
  problems.push(
    ...(await dryRunPreflight(workspace, project.config, model, opts, configMax, states)),
  );
  return problems;
}

/** The live run's preflight problems, from the checks that only read (git, disk). */
async function dryRunPreflight(
  workspace: string,
  config: ProjectConfig,
  model: WorkspaceModel,
  opts: RunOptions,
  configMax: number,
  states: readonly TaskState[],
): Promise<Problem[]> {
  const { preflightContext } = await import('./preflight/context.js');
  const { runPreflightChecks } = await import('./preflight/registry.js');
  const { PREFLIGHT_CHECKS } = await import('./preflight/checks.js');
  const ctx = await preflightContext({
    workspace,
    mode: 'dry-run',
    config,
    model,
    states,
    ...(opts.taskGroup !== undefined ? { taskGroup: opts.taskGroup } : {}),
    ...(opts.retryBlocked ? { retryBlocked: true } : {}),
    maxParallel: opts.maxParallel ?? configMax,
    targets: [],
    // Missing agent CLIs are in the report already (the routing's problems).
    foundProblems: [],
    env: catalogEnv(),
  });
  return runPreflightChecks(ctx, PREFLIGHT_CHECKS);
}
