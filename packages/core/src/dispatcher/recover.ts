import { readLocator } from '../attempt/locator.js';
import type { Classification } from '../plugins/types.js';
import { isSameProcessAlive } from '../process/process-identity.js';
import { probeAttempt } from '../state/attempt-probe.js';
import type { AttemptRecord } from '../state/state-schema.js';
import { awaitAttempt, finish } from './await-attempt.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';
import { judgeGoneAttempt } from './judge-gone.js';
import { runnerForTarget } from './run-attempt.js';
import { afterReview } from './stage-review.js';
import { afterSelfcheck } from './stage-selfcheck.js';
import { afterWorker } from './stage-worker.js';

/** Applies an attempt's verdict exactly as the stage that started it would have. */
export async function applyVerdict(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
): Promise<void> {
  if (record.role === 'worker') afterWorker(ctx, rt, record, verdict);
  else if (record.role === 'selfcheck') afterSelfcheck(ctx, rt, record, verdict);
  else await afterReview(ctx, rt, record, verdict);
}

/**
 * Reconciles one task's unfinished attempts after a restart. A gone attempt is judged from
 * its evidence at once. An attempt whose process is still alive (PID + start token + marker)
 * is re-attached, never duplicated: the returned `live` promise settles when it has been
 * judged and the task moved on. It is returned unawaited (boxed, so an async function does
 * not adopt it) so that the caller re-attaches every task's orphan at once and schedules
 * independent work while they run.
 */
export async function recoverTask(
  ctx: DispatchContext,
  rt: TaskRuntime,
): Promise<{ live?: Promise<void> }> {
  const open = rt.state.attempts.filter((a) => a.status !== 'finished');
  let live: Promise<void> | undefined;
  for (const record of open) {
    const probe = probeAttempt(record);
    if (probe.state === 'live' && live === undefined) {
      live = watchLive(ctx, rt, record, probe.pid);
      continue;
    }
    const verdict = await judgeGoneAttempt(ctx, record);
    finish(ctx, record, verdict);
    await applyVerdict(ctx, rt, record, verdict);
    await persist(ctx, rt);
  }
  return live ? { live } : {};
}

async function watchLive(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  pid: number,
): Promise<void> {
  rt.busy = true;
  try {
    const locator = await readLocator(record.attemptDir).catch(() => undefined);
    let verdict: Classification | undefined;
    if (locator) {
      const runner = runnerForTarget(
        ctx,
        locator.runtime.outputFormat,
        locator.runtime.nativeSessionMonitor === true,
      );
      const handle = await runner.reattach(locator, {
        attemptDir: record.attemptDir,
        stallTimeoutMs: ctx.options.stallTimeoutMs,
        retryLoopTimeoutMs: ctx.options.retryLoopTimeoutMs ?? ctx.options.stallTimeoutMs,
        isRetryLine: ctx.options.plugins.isRetryLineFor(locator.agent),
        ...(ctx.options.plugins.transcriptFor(locator.agent)
          ? { transcript: ctx.options.plugins.transcriptFor(locator.agent)! }
          : {}),
        ...(ctx.options.killGraceMs !== undefined ? { killGraceMs: ctx.options.killGraceMs } : {}),
      });
      if (handle) {
        record.status = 'running';
        record.pid = handle.pid;
        if (handle.startToken !== undefined) record.startToken = handle.startToken;
        ctx.bus.emit({
          type: 'attempt.started',
          task: rt.id,
          role: record.role,
          planLoop: record.planLoop,
          attempt: record.id,
          target: record.target,
          agent: locator.agent,
          model: locator.model,
          pid: handle.pid,
          attemptDir: record.attemptDir,
          reattached: true,
        });
        const agentModel = `${locator.agent}/${locator.model}`;
        const result = await awaitAttempt(ctx, rt, record, handle, agentModel);
        verdict = result.verdict;
      }
    } else {
      // Spawned but its runner had not written the locator yet: wait for the process to go.
      await waitForExit(ctx, pid);
    }
    verdict ??= await judgeGoneAttempt(ctx, record);
    if (record.status !== 'finished') finish(ctx, record, verdict);
    await applyVerdict(ctx, rt, record, verdict);
    await persist(ctx, rt);
  } finally {
    rt.busy = false;
  }
}

async function waitForExit(ctx: DispatchContext, pid: number): Promise<void> {
  while (isSameProcessAlive({ pid, startToken: undefined }) && !ctx.signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
