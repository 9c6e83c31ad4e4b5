import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { openClaimStore } from '../claims/claim-store.js';
import { stopwatch, systemClock } from '../clock/clock.js';
import { type Problem, SwitchyardError } from '../errors.js';
import { createEventBus } from '../events/event-bus.js';
import type { RunCounts } from '../events/event-schema.js';
import { acquireWorkspaceLock } from '../lock/workspace-lock.js';
import { dispatcherSecrets, redactDeep, redactingReplacer } from '../redact/secret-set.js';
import { openStateStore } from '../state/state-store.js';
import { loadWorkspace } from '../workspace/load.js';
import { stateDir as stateDirOf } from '../workspace/paths.js';
import type { DispatchContext } from './context.js';
import { watchEscalations } from './escalate.js';
import { finalizeRun } from './finalize.js';
import { recoverTask } from './recover.js';
import { buildRuntimes, prepareRetryBlocked } from './runtimes.js';
import { schedule } from './scheduler.js';
import { sealInterruptedRows } from './seal-open-rows.js';
import { registerStartGuards } from './start-veto.js';
import { catalogSourceLabel, type DispatcherOptions, type DispatchResult } from './types.js';
import { feedWorkLogFromBus } from './work-log-subscriber.js';
import { WorkLogWriter } from './work-log-writer.js';

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
  try {
    const model = loadWorkspace(workspace);
    rejectInvalidInput(model, options.taskGroup, options.retryTasks);
    const stateDir = stateDirOf(workspace);
    const runId = `${new Date(startedAt).toISOString().replace(/[-:.]/g, '')}-${randomBytes(2).toString('hex')}`;
    const secrets = dispatcherSecrets(process.env, options.catalog.catalog);
    const bus = createEventBus({
      runId,
      file: join(stateDir, 'events.jsonl'),
      redact: (event) => redactDeep(event, secrets),
    });
    if (options.onEvent) bus.on(options.onEvent);
    const claims = await openClaimStore(stateDir);
    const abort = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
    const ctx: DispatchContext = {
      options,
      workspace,
      stateDir,
      catalog: options.catalog.catalog,
      catalogFacts: {
        source: catalogSourceLabel(options.catalog),
        revision: options.catalog.revision,
        targets: options.catalog.catalog.targets,
      },
      store: openStateStore(stateDir, { replacer: redactingReplacer(secrets) }),
      claims,
      claimIndex: new Map(await claims.snapshot()),
      bus,
      workLog: new WorkLogWriter(workspace),
      tasks: new Map(),
      archived: new Set([...model.archived.values()].filter((a) => a.complete).map((a) => a.id)),
      handles: new Map(),
      controlFailures: [],
      secrets,
      signal,
      applyAbort: options.abortApply ?? new AbortController().signal,
      runStartedAt: startedAt,
      now: () => clock.now(),
      monotonicMs: () => clock.monotonicMs(),
    };
    registerStartGuards(ctx);
    feedWorkLogFromBus(ctx);
    await buildRuntimes(ctx, model);
    if (options.retryBlocked || options.retryTasks) await prepareRetryBlocked(ctx);
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
    escalations.sweep();
    const recovering = new Map<string, Promise<void>>();
    for (const rt of ctx.tasks.values()) {
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
    let last = '';
    await schedule(ctx, recovering, (counts: RunCounts) => {
      const key = JSON.stringify(counts);
      if (key === last) return;
      last = key;
      bus.emit({ type: 'run.progress', counts, elapsedMs: elapsed() });
    });
    signal.removeEventListener('abort', stop);
    ctx.applyAbort.removeEventListener('abort', abortApply);
    await escalations.flush();
    escalations.stop();
    const result = finalizeRun(ctx, startedAt, elapsed());
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
    bus.close();
    return result;
  } finally {
    lock.release();
  }
}

/** Invalid input in scope stops the run before anything launches (exit 2). */
function rejectInvalidInput(
  model: ReturnType<typeof loadWorkspace>,
  group: string | undefined,
  retryTasks: readonly string[] = [],
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
  for (const task of model.tasks) {
    if (group && task.group !== group) continue;
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
