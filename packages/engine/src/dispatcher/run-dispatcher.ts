import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  type RunCounts,
  type SecretValue,
  SwitchyardError,
  stateDir as stateDirOf,
} from '@switchyard/core';
import { dispatcherSecrets, redactDeep } from '@switchyard/runner-kit';
import { acquireWorkspaceLock } from '@switchyard/store-fs';
import { loadWorkspace, refuseUnjudgeableTests, type WorkspaceModel } from '@switchyard/tasks';
import { type Clock, deferredWrites, stopwatch, systemClock } from '@switchyard/utils';
import { createEventBus, type EventBus } from '../events/event-bus.js';
import { buildRuntimes, prepareRetryBlocked } from './agent/runtimes.js';
import { countingSourceCommands } from './checks/source-watch.js';
import { type EscalationWatch, watchEscalations } from './corrections/escalate.js';
import { finalizeRun } from './landing/finalize.js';
import { sealInterruptedRows } from './landing/seal-open-rows.js';
import { feedWorkLogFromBus } from './landing/work-log-subscriber.js';
import { WorkLogWriter } from './landing/work-log-writer.js';
import { recoverTask } from './recover.js';
import { admittedTasks, type RunScope, runRefusal } from './run-refusal.js';
import { schedule } from './scheduler.js';
import { loseTask, openSharedRun } from './shared/shared-backlog.js';
import { DEFAULT_LEASE_MS, TaskLeases } from './shared/task-leases.js';
import { registerStartGuards } from './start-veto.js';
import {
  catalogSourceLabel,
  type DispatchContext,
  type DispatcherOptions,
  type DispatchResult,
  type SourceCommands,
} from './types.js';
import { measureKeptWorktrees } from './worktree/worktree-disk.js';

/**
 * Runs the dispatcher on a workspace until every in-scope task is archived or nothing more
 * can start. Takes the physical-workspace lock first (`SY_LOCK_HELD` when another dispatcher
 * holds it), refuses invalid in-scope plans before anything launches (`SY_PLAN_INVALID`,
 * exit 2 in the CLI), re-attaches or judges attempts a previous dispatcher left behind, then
 * schedules. Core spawns nothing itself: agents start through runner plugins and gates
 * through the injected command runner.
 */
export async function runDispatcher(options: DispatcherOptions): Promise<DispatchResult> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now().getTime();
  const elapsed = stopwatch(clock);
  const workspace = realpathSync(options.workspace);
  const lock = options.lock ?? acquireWorkspaceLock({ workspace });
  // A shared backlog's LISTEN connection, stopped however the run ends (a pool waits for it).
  let watching: { stop(): Promise<void> } | undefined;
  try {
    const model = loadWorkspace(workspace);
    for (const task of model.tasks) refuseUnjudgeableTests(task, options.projectGates ?? []);
    rejectInvalidInput(model, {
      group: options.taskGroup,
      ...(options.retryTasks ? { retryTasks: options.retryTasks } : {}),
      admitted: admittedTasks((await options.store.tasks.list()).map((entry) => entry.value)),
    });
    const { ctx, abort } = await openDispatchContext(options, workspace, clock, startedAt);
    const { shared } = ctx;
    ctx.leases.adoptedOnly = shared !== undefined;
    ctx.leases.start();
    // Any machine's change to the shared backlog wakes the scheduler.
    watching = await shared?.backlog.watch(() => shared.wake?.());
    const escalations = await startRun(ctx, model);
    const recovering = await recoverLeftovers(ctx, escalations);
    const counts = await scheduleUntilDone(ctx, recovering, abort, elapsed);
    return await finishRun(ctx, escalations, counts, startedAt, elapsed);
  } finally {
    await watching?.stop();
    lock.release();
  }
}

/** The run's id: its start time and a random suffix (two runs in one second differ). */
function runIdOf(startedAt: number): string {
  return `${new Date(startedAt).toISOString().replace(/[-:.]/g, '')}-${randomBytes(2).toString('hex')}`;
}

/** The run's event bus: redacted, stamped with the run (and the machine on a shared backlog). */
function openEventBus(
  options: DispatcherOptions,
  runId: string,
  secrets: readonly SecretValue[],
): EventBus {
  const bus = createEventBus({
    runId,
    // On a shared backlog every event names its machine (the monitor and retro of any
    // machine show who did what).
    ...(options.backlog ? { machine: machineName() } : {}),
    log: options.store.events,
    redact: (event) => redactDeep(event, secrets),
  });
  if (options.onEvent) bus.on(options.onEvent);
  return bus;
}

/**
 * Everything one run shares between its stages; `abort` is the run's own stop (a human's
 * stop-run), joined with the caller's signal.
 */
async function openDispatchContext(
  options: DispatcherOptions,
  workspace: string,
  clock: Clock,
  startedAt: number,
): Promise<{ ctx: DispatchContext; abort: AbortController }> {
  const stateDir = stateDirOf(workspace);
  const runId = runIdOf(startedAt);
  const secrets = dispatcherSecrets(process.env, options.catalog.catalog);
  const { store } = options;
  const bus = openEventBus(options, runId, secrets);
  const abort = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
  const sourceCommands: SourceCommands = { running: 0, started: 0 };
  const shared = openSharedRun(options.backlog, options.leaseMs ?? DEFAULT_LEASE_MS);
  const after = clock.after?.bind(clock);
  const ctx: DispatchContext = {
    options: {
      ...options,
      runCommand: countingSourceCommands(options.runCommand, workspace, stateDir, sourceCommands),
    },
    workspace,
    stateDir,
    catalog: options.catalog.catalog,
    catalogFacts: {
      source: catalogSourceLabel(options.catalog),
      revision: options.catalog.revision,
      targets: options.catalog.catalog.targets,
    },
    store,
    claims: store.claims,
    ...(shared ? { shared } : {}),
    leases: new TaskLeases(store.leases, runId, options.leaseMs, (task) => {
      if (shared) return loseTask(ctx, task);
      const message = `${task}: its lease was taken over by another dispatcher; this run writes nothing more for it`;
      ctx.controlFailures.push(message);
      bus.emit({ type: 'control.failure', code: 'SY_LEASE_LOST', message });
    }),
    // On a shared backlog it mirrors this run's own tasks' claims only: a snapshot of the
    // other machines' claims would go stale as they release them (nothing tells this run), and
    // a task of this run sharing a path would wait on it for ever. Theirs are refused by the
    // store when this run claims (the scheduler says which task holds the path).
    claimIndex: new Map(shared ? [] : await store.claims.snapshot()),
    bus,
    workLog: new WorkLogWriter(store.workLog, secrets),
    tasks: new Map(),
    // Filled from the dispatcher's records (completion-record.ts), never from the folders.
    archived: new Set(),
    handles: new Map(),
    controlFailures: [],
    secrets,
    signal,
    applyAbort: options.abortApply ?? new AbortController().signal,
    sourceCommands,
    runStartedAt: startedAt,
    now: () => clock.now(),
    monotonicMs: () => clock.monotonicMs(),
    deferred: deferredWrites(after ? { after } : undefined),
  };
  return { ctx, abort };
}

/** Builds the tasks' runtimes, starts watching escalations and announces `run.started`. */
async function startRun(
  ctx: DispatchContext,
  model: ReturnType<typeof loadWorkspace>,
): Promise<EscalationWatch> {
  const { options } = ctx;
  registerStartGuards(ctx);
  feedWorkLogFromBus(ctx);
  await buildRuntimes(ctx, model);
  if (!ctx.shared && (options.retryBlocked || options.retryTasks)) await prepareRetryBlocked(ctx);
  const escalations = watchEscalations(ctx);
  ctx.bus.emit({
    type: 'run.started',
    workspace: ctx.workspace,
    pid: process.pid,
    catalog: { source: ctx.catalogFacts.source, revision: ctx.catalogFacts.revision },
    maxParallel: options.maxParallel,
    ...(options.taskGroup ? { taskGroup: options.taskGroup } : {}),
    tasks: [...ctx.tasks.values()].filter(
      (rt) => !options.taskGroup || rt.group === options.taskGroup,
    ).length,
  });
  return escalations;
}

/**
 * Finishes what a previous dispatcher left behind: interrupted applies, unwritten escalations,
 * attempts to re-attach or judge, open work-log rows. Returns the re-attached live attempts.
 */
async function recoverLeftovers(
  ctx: DispatchContext,
  escalations: EscalationWatch,
): Promise<Map<string, Promise<void>>> {
  const { shared } = ctx;
  // Worktree isolation: an apply a crash interrupted is finished or rolled back first.
  await ctx.options.isolation?.recover();
  // The disk the kept worktrees take now (the disk cap, status and the monitor read it), and
  // escalations a crash left unwritten. (On a shared backlog no task is this run's yet: the
  // others' states are other machines' to write.)
  if (!shared) {
    await measureKeptWorktrees(ctx);
    await escalations.sweep();
  }
  const recovering = new Map<string, Promise<void>>();
  // On a shared backlog a task is recovered once this run takes it (shared-backlog.ts).
  for (const rt of shared ? [] : ctx.tasks.values()) {
    const { live } = await recoverTask(ctx, rt);
    if (live) recovering.set(rt.id, live);
  }
  // On a shared backlog, once this run takes their task (shared-backlog.ts).
  if (!shared) await sealInterruptedRows(ctx);
  return recovering;
}

/**
 * Schedules until nothing runs and nothing more can start, stopping on an interrupt or a
 * human's stop-run; announces each change of the counts. Returns the last counts announced.
 */
async function scheduleUntilDone(
  ctx: DispatchContext,
  recovering: Map<string, Promise<void>>,
  abort: AbortController,
  elapsed: () => number,
): Promise<RunCounts> {
  const { bus, signal } = ctx;
  const stop = () => {
    bus.emit({ type: 'run.stopping', abortApply: false });
    for (const handle of ctx.handles.values()) void handle.cancel();
  };
  const abortApply = () => bus.emit({ type: 'run.stopping', abortApply: true });
  signal.addEventListener('abort', stop);
  ctx.applyAbort.addEventListener('abort', abortApply);
  // A human's stop-run (monitor) stops the run as a first interrupt does.
  const detach = ctx.options.control?.attach(ctx, () => abort.abort());
  let last = '';
  await schedule(ctx, recovering, (counts: RunCounts) => {
    const key = JSON.stringify(counts);
    if (key === last) return;
    last = key;
    bus.emit({ type: 'run.progress', counts, elapsedMs: elapsed() });
  }).finally(() => detach?.());
  signal.removeEventListener('abort', stop);
  ctx.applyAbort.removeEventListener('abort', abortApply);
  return JSON.parse(
    last || '{"running":0,"ready":0,"waiting":0,"blocked":0,"done":0}',
  ) as RunCounts;
}

/** Flushes escalations, writes the run's outcome, announces `run.finished` and lets go. */
async function finishRun(
  ctx: DispatchContext,
  escalations: EscalationWatch,
  counts: RunCounts,
  startedAt: number,
  elapsed: () => number,
): Promise<DispatchResult> {
  await escalations.flush();
  escalations.stop();
  const result = await finalizeRun(ctx, startedAt, elapsed());
  ctx.bus.emit({
    type: 'run.finished',
    exitCode: result.exitCode,
    counts: { ...counts, running: 0 },
    elapsedMs: result.elapsedMs,
    blocked: result.blocked,
    controlFailures: result.controlFailures,
  });
  await ctx.bus.flush();
  ctx.bus.close();
  await ctx.leases.stop();
  return result;
}

/** Invalid input in scope stops the run before anything launches (exit 2). */
function rejectInvalidInput(model: WorkspaceModel, scope: RunScope): void {
  const refusal = runRefusal(model, scope);
  if (!refusal) return;
  throw new SwitchyardError(refusal.code, refusal.message, {
    problems: refusal.problems,
    hint: refusal.hint,
  });
}

/** This machine as events name it: `<host> pid <pid>` (as `status --store` shows a holder). */
function machineName(): string {
  return `${hostname()} pid ${process.pid}`;
}
