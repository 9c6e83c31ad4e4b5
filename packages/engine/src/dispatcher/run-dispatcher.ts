import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  type Problem,
  type RunCounts,
  SwitchyardError,
  stateDir as stateDirOf,
  stopwatch,
  systemClock,
  type TaskState,
  type Versioned,
} from '@switchyard/core';
import { dispatcherSecrets, redactDeep } from '@switchyard/runner-kit';
import { acquireWorkspaceLock } from '@switchyard/store-fs';
import { loadWorkspace, refuseUnjudgeableTests } from '@switchyard/tasks';
import { createEventBus } from '../events/event-bus.js';
import { buildRuntimes, prepareRetryBlocked } from './agent/runtimes.js';
import { countingSourceCommands, type SourceCommands } from './checks/source-watch.js';
import type { DispatchContext } from './context.js';
import { watchEscalations } from './corrections/escalate.js';
import { finalizeRun } from './landing/finalize.js';
import { sealInterruptedRows } from './landing/seal-open-rows.js';
import { feedWorkLogFromBus } from './landing/work-log-subscriber.js';
import { WorkLogWriter } from './landing/work-log-writer.js';
import { recoverTask } from './recover.js';
import { schedule } from './scheduler.js';
import { loseTask, openSharedRun } from './shared/shared-backlog.js';
import { DEFAULT_LEASE_MS, TaskLeases } from './shared/task-leases.js';
import { registerStartGuards } from './start-veto.js';
import { catalogSourceLabel, type DispatcherOptions, type DispatchResult } from './types.js';
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
    const stateDir = stateDirOf(workspace);
    rejectInvalidInput(
      model,
      options.taskGroup,
      options.retryTasks,
      admittedTasks(await options.store.tasks.list()),
    );
    const runId = `${new Date(startedAt).toISOString().replace(/[-:.]/g, '')}-${randomBytes(2).toString('hex')}`;
    const secrets = dispatcherSecrets(process.env, options.catalog.catalog);
    const { store } = options;
    const bus = createEventBus({
      runId,
      // On a shared backlog every event names its machine (the monitor and retro of any
      // machine show who did what).
      ...(options.backlog ? { machine: machineName() } : {}),
      log: store.events,
      redact: (event) => redactDeep(event, secrets),
    });
    if (options.onEvent) bus.on(options.onEvent);
    const abort = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
    const sourceCommands: SourceCommands = { running: 0, started: 0 };
    const shared = openSharedRun(options.backlog, options.leaseMs ?? DEFAULT_LEASE_MS);
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
    };
    ctx.leases.adoptedOnly = shared !== undefined;
    ctx.leases.start();
    // Any machine's change to the shared backlog wakes the scheduler.
    watching = await shared?.backlog.watch(() => shared.wake?.());
    registerStartGuards(ctx);
    feedWorkLogFromBus(ctx);
    await buildRuntimes(ctx, model);
    if (!shared && (options.retryBlocked || options.retryTasks)) await prepareRetryBlocked(ctx);
    const escalations = watchEscalations(ctx);
    bus.emit({
      type: 'run.started',
      workspace,
      pid: process.pid,
      catalog: { source: ctx.catalogFacts.source, revision: ctx.catalogFacts.revision },
      maxParallel: options.maxParallel,
      ...(options.taskGroup ? { taskGroup: options.taskGroup } : {}),
      tasks: [...ctx.tasks.values()].filter(
        (rt) => !options.taskGroup || rt.group === options.taskGroup,
      ).length,
    });
    // Worktree isolation: an apply a crash interrupted is finished or rolled back first.
    await options.isolation?.recover();
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
    sealInterruptedRows(ctx);
    const stop = () => {
      bus.emit({ type: 'run.stopping', abortApply: false });
      for (const handle of ctx.handles.values()) void handle.cancel();
    };
    const abortApply = () => bus.emit({ type: 'run.stopping', abortApply: true });
    signal.addEventListener('abort', stop);
    ctx.applyAbort.addEventListener('abort', abortApply);
    // A human's stop-run (monitor) stops the run as a first interrupt does.
    const detach = options.control?.attach(ctx, () => abort.abort());
    let last = '';
    await schedule(ctx, recovering, (counts: RunCounts) => {
      const key = JSON.stringify(counts);
      if (key === last) return;
      last = key;
      bus.emit({ type: 'run.progress', counts, elapsedMs: elapsed() });
    }).finally(() => detach?.());
    signal.removeEventListener('abort', stop);
    ctx.applyAbort.removeEventListener('abort', abortApply);
    await escalations.flush();
    escalations.stop();
    const result = await finalizeRun(ctx, startedAt, elapsed());
    const counts = JSON.parse(
      last || '{"running":0,"ready":0,"waiting":0,"blocked":0,"done":0}',
    ) as RunCounts;
    bus.emit({
      type: 'run.finished',
      exitCode: result.exitCode,
      counts: { ...counts, running: 0 },
      elapsedMs: result.elapsedMs,
      blocked: result.blocked,
      controlFailures: result.controlFailures,
    });
    await bus.flush();
    bus.close();
    await ctx.leases.stop();
    return result;
  } finally {
    await watching?.stop();
    lock.release();
  }
}

/** Invalid input in scope stops the run before anything launches (exit 2). */
function rejectInvalidInput(
  model: ReturnType<typeof loadWorkspace>,
  group: string | undefined,
  retryTasks: readonly string[] = [],
  admitted: ReadonlySet<string> = new Set(),
): void {
  // Problems of the workspace itself (no agent-task/ folder…); task problems are on each task.
  const problems: Problem[] = model.problems.filter(
    (p) => p.severity !== 'warning' && !model.tasks.some((t) => t.problems.includes(p)),
  );
  if (group && !model.groups.includes(group)) {
    problems.push({
      code: 'SY_USAGE',
      message: `no task group "${group}" under agent-task/`,
      hint: `Known groups: ${model.groups.join(', ') || '(none)'}.`,
    });
  }
  const retried = new Set(retryTasks);
  for (const task of model.tasks) {
    if (group && task.group !== group) continue;
    // A task the dispatcher admitted runs its record: files an agent broke are a finding then,
    // not a reason to stop the run (a retry admits the files, so those must be valid).
    if (admitted.has(task.id) && !retried.has(task.id)) continue;
    problems.push(...task.problems.filter((p) => p.severity !== 'warning'));
  }
  problems.push(...unknownRetryTasks(model, retryTasks));
  if (problems.length === 0) return;
  const unique = [
    ...new Map(problems.map((p) => [`${p.file}:${p.line}:${p.message}`, p])).values(),
  ];
  throw new SwitchyardError(
    'SY_PLAN_INVALID',
    `${unique.length} problem(s) in the task plans; nothing was launched.`,
    {
      problems: unique,
      hint: 'Fix every listed problem (`switchyard validate-plan <PLAN.md>` checks one plan), then run again.',
    },
  );
}

/** `switchyard retry` names only active tasks (a typo must not silently retry nothing). */
function unknownRetryTasks(
  model: ReturnType<typeof loadWorkspace>,
  ids: readonly string[],
): Problem[] {
  const known = new Set(model.tasks.map((t) => t.id));
  return ids
    .filter((id) => !known.has(id))
    .map((id) => ({
      code: 'SY_USAGE' as const,
      message: `no active task "${id}" to retry`,
      hint: `Name tasks as <group>/<task> under agent-task/ (\`switchyard status\` lists the blocked ones). Known: ${
        model.tasks
          .map((t) => t.id)
          .slice(0, 10)
          .join(', ') || '(none)'
      }.`,
    }));
}

/** Tasks whose state holds an admitted plan that is not to be admitted again. */
function admittedTasks(stored: readonly Versioned<TaskState>[]): Set<string> {
  return new Set(
    stored
      .map((entry) => entry.value)
      .filter((state) => state.plan && !state.plan.readmit && state.phase !== 'done')
      .map((state) => state.task),
  );
}

/** This machine as events name it: `<host> pid <pid>` (as `status --store` shows a holder). */
function machineName(): string {
  return `${hostname()} pid ${process.pid}`;
}
