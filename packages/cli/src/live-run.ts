import { hostname } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyRouting,
  CATALOG_ENV,
  type CatalogTarget,
  type ResolvedCatalog,
  selectCandidates,
} from '@switchyard/catalog';
import {
  agentCommitPolicyOf,
  hasConfigFile,
  loadProjectConfig,
  resolveCatalog,
} from '@switchyard/config';
import {
  isRouteId,
  type Problem,
  type RouteId,
  type RunEvent,
  type RunnerPlugin,
  type SessionYamlPlan,
  STAGES,
  type Store,
  SwitchyardError,
  stateDir,
} from '@switchyard/core';
import { loadPromptTemplates, RunControl, runDispatcher } from '@switchyard/engine';
import type { MonitorServer } from '@switchyard/monitor';
import { loadPlugins, PluginSet } from '@switchyard/runner-kit';
import { acquireWorkspaceLock, openFsStore, type WorkspaceLock } from '@switchyard/store-fs';
import { loadWorkspace, resolveWith, type WorkspaceModel } from '@switchyard/tasks';
import { assetPath, findWorkspaceRoot } from '@switchyard/utils';
import pc from 'picocolors';
import {
  agentsWithVerifiedLines,
  probeAgentVersions,
  versionsByTarget,
  versionWarnings,
} from './agent-versions.js';
import { BUILTIN_PLUGINS } from './builtin-plugins.js';
import { onOutputClosed } from './closed-pipe.js';
import { configuredEngineOptions } from './engine-options.js';
import { skipMissingTargets } from './executable-targets.js';
import { exitCodeFor } from './exit-codes.js';
import { runGateCommand } from './gate-runner.js';
import { agentTypoWarnings } from './known-agents.js';
import { startMonitorServer } from './monitor-server.js';
import { createNotifier } from './notify/notifier.js';
import { printProblems } from './output.js';
import { permittedCatalog } from './permissions.js';
import { cappedParallel } from './plan-concurrency.js';
import { PREFLIGHT_CHECKS } from './preflight/checks.js';
import { preflightContext } from './preflight/context.js';
import { preflightError, runPreflightChecks } from './preflight/registry.js';
import { openRunIsolation, openRunSourceGuard } from './run-isolation.js';
import { createRunRenderer } from './run-renderer.js';
import { writeRunRetro } from './run-retro.js';
import { checkSandbox } from './sandbox-check.js';
import { openRunSession, type RunSession } from './session/run-session.js';
import { publishTasks, type SharedStore, sharedIsolation } from './store/shared-backlog.js';

/** Options of a live `switchyard run` (the flags after parsing). */
export interface LiveRunOptions {
  workspace?: string;
  executionCatalog?: string;
  taskGroup?: string;
  maxParallel?: number;
  retryBlocked?: boolean;
  /** `switchyard retry <task>…`: retry these blocked tasks. */
  retryTasks?: string[];
  with?: string;
  json?: boolean;
  /** Serve the browser monitor for the run (see `switchyard monitor`). */
  monitor?: boolean;
  /** The monitor is served by default (a YAML plan), not asked for: one that cannot start is
   * a warning, not a failure of the run. */
  monitorByDefault?: boolean;
  port?: number;
  /**
   * Runs under the workspace lock before the workspace is read (a YAML plan writes its task
   * folders here); returning false means there is nothing to run (exit 0).
   */
  prepare?: (workspace: string) => boolean;
  /** `switchyard resume <id>`: continue this session instead of starting a new one. */
  resumeSession?: string;
  /** A YAML plan's `execution.max_concurrency`: caps the run's max parallel, never raises it. */
  planMaxConcurrency?: number;
  /** A new session of a YAML plan: the plan as run, kept in the session's plan.json. */
  yamlPlan?: SessionYamlPlan;
  /** The monitor's hold on the run (its actions); one is made for `--monitor`. */
  control?: RunControl;
  /** `--store`: "file" or a postgres:// URL shared with other machines (see `openSharedStore`). */
  store?: string;
}

/**
 * A live run: project config discovered from the workspace upward, catalog resolved and
 * preflighted for the targets the in-scope tasks can use, plugins loaded, then the core
 * dispatcher with the terminal renderer (or JSONL events with `--json`). SIGINT/SIGTERM stop
 * the agents and end with 130. Returns the exit code.
 */
export async function liveRun(opts: LiveRunOptions): Promise<number> {
  // Found (like git's root) before the lock: nothing is created outside a real workspace.
  const workspace = findWorkspaceRoot({
    ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
    isMarker: hasConfigFile,
    // A YAML plan writes its tasks under the lock (`prepare`): agent-task/ may not exist yet.
    requireTasks: opts.prepare === undefined,
  });
  // A second dispatcher on this workspace fails here, at once, before anything else runs.
  const lock = acquireWorkspaceLock({ workspace });
  let proceed = true;
  try {
    if (opts.prepare) proceed = opts.prepare(workspace);
  } catch (error) {
    lock.release();
    throw error;
  }
  if (!proceed) {
    lock.release();
    return 0;
  }
  // The page's actions (retry, skip, resolve, stop) reach this run's dispatcher through it.
  const control = opts.control ?? (opts.monitor ? new RunControl() : undefined);
  const monitor = opts.monitor
    ? await startRunMonitor(workspace, { ...opts, ...(control ? { control } : {}) }, lock)
    : undefined;
  let shared: SharedStore | undefined;
  let store: Store;
  try {
    shared = await openRunSharedStore(workspace, opts);
    // The run's one store: a shared one, else the file store, exclusive under the lock.
    store = shared?.store ?? openFsStore({ workspace, exclusive: true });
  } catch (error) {
    lock.release();
    await monitor?.close();
    throw error;
  }
  try {
    return await liveRunLocked(
      workspace,
      lock,
      store,
      shared,
      { ...opts, ...(control ? { control } : {}) },
      monitor,
    );
  } finally {
    await store.close();
    lock.release();
    await monitor?.close();
  }
}

/** The shared store `--store`, SWITCHYARD_STORE or config `store` names, if any. */
async function openRunSharedStore(
  workspace: string,
  opts: LiveRunOptions,
): Promise<SharedStore | undefined> {
  const { resolveStore } = await import('./store/resolve-store.js');
  const setting = await resolveStore({
    ...(opts.store !== undefined ? { store: opts.store } : {}),
    workspace,
  });
  if (setting.kind !== 'postgres') return undefined;
  const { openSharedStore } = await import('./store/shared-backlog.js');
  return openSharedStore(workspace, setting);
}

async function liveRunLocked(
  workspace: string,
  lock: WorkspaceLock,
  store: Store,
  shared: SharedStore | undefined,
  opts: LiveRunOptions,
  monitor: MonitorServer | undefined,
): Promise<number> {
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
  if (fixupTarget !== undefined && !(fixupTarget in written.catalog.targets))
    throw new SwitchyardError(
      'SY_CONFIG_INVALID',
      `review.fixupTarget names target "${fixupTarget}", which the catalog does not define.`,
      {
        ...(filepath ? { file: filepath } : {}),
        hint: `Name one of the catalog's targets (${Object.keys(written.catalog.targets).join(', ')}), or remove review.fixupTarget to keep MINOR findings as accepted notes.`,
      },
    );
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
  const abort = new AbortController();
  /** Records kept current while the run goes, closed when it ends. */
  const closing: Array<() => Promise<void>> = [];
  // A first SIGINT/SIGTERM stops admissions, agents and gates and lets the apply under way
  // finish; a second one aborts that apply too (rolled back through its journal).
  const abortApply = new AbortController();
  const onSignal = () => (abort.signal.aborted ? abortApply.abort() : abort.abort());
  // `on`, not `once`: execa's signal-exit handler re-raises the signal (killing the process
  // before the agents are stopped and the state persisted) when it finds itself the only
  // listener left, which a consumed `once` listener would make it.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `switchyard run --json | head`: the reader left; stop the agents and end like an interrupt.
  const offPipe = onOutputClosed(() => abort.abort());
  const renderer = opts.json ? undefined : createRunRenderer();
  // Every precondition, before a session exists or anything is launched (all problems at once).
  const problems = await runPreflightChecks(
    await preflightContext({
      workspace,
      mode: 'run',
      config,
      model,
      ...(opts.taskGroup !== undefined ? { taskGroup: opts.taskGroup } : {}),
      ...(opts.retryBlocked ? { retryBlocked: true } : {}),
      ...(opts.retryTasks ? { retryTasks: opts.retryTasks } : {}),
      maxParallel: cappedParallel(opts.maxParallel ?? config.maxParallel, opts.planMaxConcurrency),
      targets: usedTargets(catalog, scope),
      foundProblems: [...checked.errors, ...permitted.problems, ...sandbox.problems],
      env,
      signal: abort.signal,
    }),
    PREFLIGHT_CHECKS,
  );
  const refused = preflightError(problems);
  if (abort.signal.aborted || refused) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    offPipe();
    await plugins.dispose();
    // Interrupted during the checks: nothing was launched, but it is an interrupt.
    if (abort.signal.aborted) return 130;
    throw refused;
  }
  printProblems(problems);
  // Sessions are this machine's runs (judged alive by its process table): in the file store,
  // whichever store holds the tasks.
  const local = store.kind === 'fs' ? undefined : openFsStore({ workspace });
  const session = await openRunSession(
    (local ?? store).sessions,
    workspace,
    model,
    {
      taskGroup: opts.taskGroup,
      with: opts.with,
      maxParallel: opts.maxParallel,
      executionCatalog: opts.executionCatalog ? resolve(opts.executionCatalog) : undefined,
      retryBlocked: opts.retryBlocked,
      retryTasks: opts.retryTasks,
    },
    opts.resumeSession,
    opts.yamlPlan,
  );
  announceSession(session, workspace, opts, monitor);
  if (monitor) {
    await session.recordMonitor(monitor);
    closing.push(() => session.recordMonitor(monitor, true));
  }
  const notifier = createNotifier(config.notify, workspace, (m) => process.stderr.write(`${m}\n`));
  const show = opts.json
    ? (event: RunEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)
    : (event: RunEvent) => renderer!.onEvent(event);
  // This run's id, for its retrospective: on a shared backlog the log's last run may be
  // another machine's.
  let ownRunId: string | undefined;
  const onEvent = (event: RunEvent) => {
    if (event.type === 'run.started') ownRunId ??= event.runId;
    show(event);
    session.onEvent(event);
    notifier.onEvent(event);
  };
  try {
    // Worktree records and apply journals describe this machine's worktrees and checkout: on a
    // shared store, whose scope is every clone of the repository, they stay in this
    // workspace's file store (no other machine's recovery may take this apply for its own).
    const isolation = await openRunIsolation(
      workspace,
      config.isolation,
      shared ? openFsStore({ workspace }) : store,
    );
    if (shared) {
      if (!isolation.isolation)
        throw new SwitchyardError(
          'SY_STORE_SCOPE',
          `A run on the shared store ${store.location} needs worktree isolation (each task's commit is pushed to ${shared.target.remote}/${shared.target.branch}); this workspace runs with isolation "none".`,
          { hint: 'Remove `"isolation": "none"` from the project config, or run without --store.' },
        );
      const holder = `${hostname()}/${process.pid}/apply`;
      isolation.isolation = await sharedIsolation(isolation.isolation, shared, holder);
      const { published, existing } = await publishTasks(
        shared,
        model.tasks,
        opts.taskGroup,
        holder,
      );
      if (!opts.json)
        process.stdout.write(
          `backlog ${shared.scope} on ${store.location}: ${published} task(s) published, ${existing} already there\n`,
        );
    }
    const sourceGuard = await openRunSourceGuard(workspace, config.isolation);
    // On the run's own output (stderr stays for errors): the user sees how to isolate tasks.
    if (isolation.warning && !opts.json)
      process.stdout.write(`${pc.yellow('warning')} isolation: ${isolation.warning}\n`);
    // Each agent CLI's version goes into its attempts' evidence; one outside the release
    // lines its classifiers were verified on is worth a warning before anything starts.
    const classifiers = plugins.classifiers.list();
    const versions = await probeAgentVersions(
      usedTargets(catalog, scope),
      agentsWithVerifiedLines(classifiers),
      { cwd: workspace, signal: abort.signal },
    );
    if (abort.signal.aborted) return 130;
    printProblems(versionWarnings(versions, classifiers));
    const result = await runDispatcher({
      workspace,
      store,
      ...(shared ? { backlog: shared.backlog, leaseMs: shared.leaseMs } : {}),
      catalog,
      ...configuredEngineOptions(config),
      maxParallel: cappedParallel(opts.maxParallel ?? config.maxParallel, opts.planMaxConcurrency),
      ...(opts.taskGroup ? { taskGroup: opts.taskGroup } : {}),
      ...(opts.retryBlocked ? { retryBlocked: true } : {}),
      ...(opts.retryTasks ? { retryTasks: opts.retryTasks } : {}),
      ...(opts.with ? { runWith: opts.with } : {}),
      plugins,
      runCommand: runGateCommand,
      prompts,
      onEvent,
      signal: abort.signal,
      abortApply: abortApply.signal,
      ...(opts.control ? { control: opts.control } : {}),
      lock,
      ...(isolation.isolation
        ? {
            isolation: isolation.isolation,
            writeSetPolicy: config.writeSet,
            worktreeSetup: {
              commands: isolation.settings.setup,
              timeoutMs: isolation.settings.setupTimeoutMs,
            },
            ...(isolation.settings.maxDiskBytes
              ? { worktreeDiskCap: isolation.settings.maxDiskBytes }
              : {}),
            agentCommitPolicy: agentCommitPolicyOf(config.isolation),
          }
        : {}),
      ...(sourceGuard ? { sourceGuard } : {}),
      agentVersions: versionsByTarget(versions),
      sourceIsWorkingTree: !isolation.isolation,
      ...(sandbox.command
        ? {
            sandbox: {
              config: config.sandbox,
              targets: config.sandboxTargets,
              command: sandbox.command,
            },
          }
        : {}),
    });
    await notifier.close();
    await session.finish({ result });
    for (const close of closing) await close();
    await local?.close();
    await writeRunRetro(workspace, store.events, config.prices, ownRunId);
    renderer?.summary(result, {
      archive: resolve(workspace, 'agent-task', 'archive'),
      state: stateDir(workspace),
    });
    return result.exitCode;
  } catch (error) {
    await session.finish({ code: exitCodeFor(error) });
    for (const close of closing) await close();
    await local?.close();
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    offPipe();
    await plugins.dispose();
  }
}

/**
 * The monitor of `run --monitor` (announced with the session). A failure to start one that
 * was asked for releases the lock it was started under; one served by default is a warning.
 */
async function startRunMonitor(
  workspace: string,
  opts: LiveRunOptions,
  lock: WorkspaceLock,
): Promise<MonitorServer | undefined> {
  try {
    return await startMonitorServer(workspace, opts);
  } catch (error) {
    if (opts.monitorByDefault) {
      process.stderr.write(
        `warning: the monitor could not start (${error instanceof Error ? error.message : String(error)}); the run goes on without it (--no-monitor skips it)\n`,
      );
      return undefined;
    }
    lock.release();
    throw error;
  }
}

/**
 * Says which session runs: with --json the first event on stdout, `session.started` (session
 * id, where its folder is, the plan, the monitor URL when one serves it); else the session
 * line, then `monitor_url <url>`.
 */
function announceSession(
  session: RunSession,
  workspace: string,
  opts: LiveRunOptions,
  monitor: MonitorServer | undefined,
): void {
  const yaml = session.plan.yamlPlan;
  if (opts.json) {
    const parsed = yaml?.parsed as { planId?: unknown; title?: unknown } | undefined;
    const started = {
      type: 'session.started',
      at: new Date().toISOString(),
      session_id: session.id,
      resumed: opts.resumeSession !== undefined,
      workspace,
      session_dir: session.dir,
      plan: yaml
        ? {
            file: yaml.file,
            sha256: yaml.sha256,
            ...(typeof parsed?.planId === 'string' ? { id: parsed.planId } : {}),
            ...(typeof parsed?.title === 'string' ? { title: parsed.title } : {}),
          }
        : null,
      tasks: session.plan.tasks.length,
      ...(monitor ? { monitor_url: monitor.url } : {}),
    };
    process.stdout.write(`${JSON.stringify(started)}\n`);
    return;
  }
  process.stdout.write(`session ${session.id}${opts.resumeSession ? ' (resumed)' : ''}\n`);
  if (monitor) process.stdout.write(`monitor_url ${monitor.url}\n`);
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
function usedTargets(
  catalog: ResolvedCatalog,
  scope: ReturnType<typeof scopeOf>,
): [string, CatalogTarget][] {
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
