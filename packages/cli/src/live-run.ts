import { resolve } from 'node:path';
import { hasConfigFile } from '@switchyard/config';
import { type Problem, type RunEvent, type Store, stateDir } from '@switchyard/core';
import { type DispatchResult, RunControl, runDispatcher } from '@switchyard/engine';
import type { MonitorServer } from '@switchyard/monitor';
import { acquireWorkspaceLock, openFsStore, type WorkspaceLock } from '@switchyard/store-fs';
import type { WorkspaceModel } from '@switchyard/tasks';
import { findWorkspaceRoot } from '@switchyard/utils';
import pc from 'picocolors';
import { agentsWithVerifiedLines, probeAgentVersions, versionWarnings } from './agent-versions.js';
import { exitCodeFor } from './exit-codes.js';
import { dispatcherOptions, type LiveDispatch, openLiveIsolation } from './live-run-dispatch.js';
import type { LiveRunOptions } from './live-run-options.js';
import { prepareRun, type RunSetup, usedTargets } from './live-run-setup.js';
import { startMonitorServer } from './monitor-server.js';
import { createNotifier, type Notifier } from './notify/notifier.js';
import { printProblems } from './output.js';
import { cappedParallel } from './plan-concurrency.js';
import { PREFLIGHT_CHECKS } from './preflight/checks.js';
import { preflightContext } from './preflight/context.js';
import { preflightError, runPreflightChecks } from './preflight/registry.js';
import { openRunSourceGuard } from './run-isolation.js';
import { createRunRenderer, type RunRenderer } from './run-renderer.js';
import { writeRunRetro } from './run-retro.js';
import { listenForStop } from './run-stop-signals.js';
import { openRunSession, type RunSession } from './session/run-session.js';
import type { SharedStore } from './store/shared-backlog.js';

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

/** The run under the workspace lock: setup, preflight, session, then the dispatcher. */
async function liveRunLocked(
  workspace: string,
  lock: WorkspaceLock,
  store: Store,
  shared: SharedStore | undefined,
  opts: LiveRunOptions,
  monitor: MonitorServer | undefined,
): Promise<number> {
  const setup = await prepareRun(workspace, opts);
  const stop = listenForStop();
  const renderer = opts.json ? undefined : createRunRenderer();
  // Every precondition, before a session exists or anything is launched (all problems at once).
  const problems = await preflightRun(workspace, setup, opts, stop.abort.signal);
  const refused = preflightError(problems);
  if (stop.abort.signal.aborted || refused) {
    stop.off();
    await setup.plugins.dispose();
    // Interrupted during the checks: nothing was launched, but it is an interrupt.
    if (stop.abort.signal.aborted) return 130;
    throw refused;
  }
  printProblems(problems);
  // Sessions are this machine's runs (judged alive by its process table): in the file store,
  // whichever store holds the tasks.
  const local = store.kind === 'fs' ? undefined : openFsStore({ workspace });
  const session = await openLiveSession((local ?? store).sessions, workspace, setup.model, opts);
  announceSession(session, workspace, opts, monitor);
  /** Records kept current while the run goes, closed when it ends. */
  const closing: Array<() => Promise<void>> = [];
  if (monitor) {
    await session.recordMonitor(monitor);
    closing.push(() => session.recordMonitor(monitor, true));
  }
  const notifier = createNotifier(setup.config.notify, workspace, (m) =>
    process.stderr.write(`${m}\n`),
  );
  const events = runEventFanOut(opts, renderer, session, notifier);
  const closeRecords = async () => {
    for (const close of closing) await close();
    await local?.close();
  };
  try {
    const run = { workspace, store, shared, lock, opts, stop, onEvent: events.onEvent };
    const result = await dispatchLive(setup, run);
    if (result === 130) return 130;
    await notifier.close();
    await session.finish({ result });
    await closeRecords();
    await writeRunRetro(workspace, store.events, setup.config.prices, events.ownRunId());
    renderer?.summary(result, {
      archive: resolve(workspace, 'agent-task', 'archive'),
      state: stateDir(workspace),
    });
    return result.exitCode;
  } catch (error) {
    await session.finish({ code: exitCodeFor(error) });
    await closeRecords();
    throw error;
  } finally {
    stop.off();
    await setup.plugins.dispose();
  }
}

/** The preflight checks of a run, with the problems its setup found. */
async function preflightRun(
  workspace: string,
  setup: RunSetup,
  opts: LiveRunOptions,
  signal: AbortSignal,
): Promise<Problem[]> {
  const { config, model, env } = setup;
  return runPreflightChecks(
    await preflightContext({
      workspace,
      mode: 'run',
      config,
      model,
      ...(opts.taskGroup !== undefined ? { taskGroup: opts.taskGroup } : {}),
      ...(opts.retryBlocked ? { retryBlocked: true } : {}),
      ...(opts.retryTasks ? { retryTasks: opts.retryTasks } : {}),
      maxParallel: cappedParallel(opts.maxParallel ?? config.maxParallel, opts.planMaxConcurrency),
      targets: usedTargets(setup.catalog, setup.scope),
      foundProblems: setup.foundProblems,
      env,
      signal,
    }),
    PREFLIGHT_CHECKS,
  );
}

/** A new session for the run's flags, or the one `switchyard resume` continues. */
function openLiveSession(
  sessions: Store['sessions'],
  workspace: string,
  model: WorkspaceModel,
  opts: LiveRunOptions,
): Promise<RunSession> {
  return openRunSession(
    sessions,
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
}

/**
 * Each run event goes to the terminal (or stdout as JSON), the session and the notifier. It
 * keeps this run's id for its retrospective: on a shared backlog the log's last run may be
 * another machine's.
 */
function runEventFanOut(
  opts: LiveRunOptions,
  renderer: RunRenderer | undefined,
  session: RunSession,
  notifier: Notifier,
): { onEvent: (event: RunEvent) => void; ownRunId: () => string | undefined } {
  const show = opts.json
    ? (event: RunEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)
    : (event: RunEvent) => renderer!.onEvent(event);
  let ownRunId: string | undefined;
  const onEvent = (event: RunEvent) => {
    if (event.type === 'run.started') ownRunId ??= event.runId;
    show(event);
    session.onEvent(event);
    notifier.onEvent(event);
  };
  return { onEvent, ownRunId: () => ownRunId };
}

/**
 * Isolation, source guard and agent versions, then the dispatcher; 130 when the run was
 * interrupted before the dispatcher started.
 */
async function dispatchLive(
  setup: RunSetup,
  run: Omit<LiveDispatch, 'isolation' | 'sourceGuard' | 'versions'>,
): Promise<DispatchResult | 130> {
  const { workspace, opts, stop } = run;
  const isolation = await openLiveIsolation(workspace, setup, run.store, run.shared, opts);
  const sourceGuard = await openRunSourceGuard(workspace, setup.config.isolation);
  // On the run's own output (stderr stays for errors): the user sees how to isolate tasks.
  if (isolation.warning && !opts.json)
    process.stdout.write(`${pc.yellow('warning')} isolation: ${isolation.warning}\n`);
  // Each agent CLI's version goes into its attempts' evidence; one outside the release
  // lines its classifiers were verified on is worth a warning before anything starts.
  const classifiers = setup.plugins.classifiers.list();
  const versions = await probeAgentVersions(
    usedTargets(setup.catalog, setup.scope),
    agentsWithVerifiedLines(classifiers),
    { cwd: workspace, signal: stop.abort.signal },
  );
  if (stop.abort.signal.aborted) return 130;
  printProblems(versionWarnings(versions, classifiers));
  return runDispatcher(dispatcherOptions(setup, { ...run, isolation, sourceGuard, versions }));
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
