import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type AttemptRecord, type Classification, COMPLETE_LOG } from '@switchyard/core';
import { readLocator } from '@switchyard/runner-kit';
import { isSameProcessAlive } from '@switchyard/utils';
import { decisionKeyOf } from '../lifecycle/index.js';
import { checkDecision } from '../selection/decide.js';
import { probeAttempt } from '../status/attempt-probe.js';
import { applyVerdict } from './agent/agent-stages.js';
import { attemptTimeLimitMs } from './agent/attempt-time-limit.js';
import { awaitAttempt, finish } from './agent/await-attempt.js';
import { runnerForTarget } from './agent/run-attempt.js';
import { unrecordedReason } from './checks/completion-record.js';
import { judgeGoneAttempt } from './checks/judge-gone.js';
import { checkSource } from './checks/source-watch.js';
import { persist } from './context.js';
import { takeReturnedPlan } from './corrections/plan-copy.js';
import { blockTask } from './landing/apply-failure.js';
import { settleGoneAttempt } from './settle-gone.js';
import type { DispatchContext, TaskRuntime } from './types.js';

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
    await settleGoneAttempt(ctx, rt, record, verdict);
    await checkSource(ctx, rt, record);
    takeReturnedPlan(ctx, rt, record);
    if (!rt.archivedByHand && !blockedByCatalogChange(ctx, rt, record))
      await applyVerdict(ctx, rt, record, verdict);
    await persist(ctx, rt);
  }
  if (rt.archivedByHand) {
    if (live) live = live.then(() => settleArchivedByHand(ctx, rt));
    else await settleArchivedByHand(ctx, rt);
  }
  return live ? { live } : {};
}

/**
 * An attempt left by an earlier dispatcher ran on a decision of the catalog as it was then.
 * When the catalog changed since, its result is not accepted on the new one (a worker
 * decided on one revision, reviewed on another): the task fails closed, blocked with both
 * revisions until `--retry-blocked` decides again. True when it blocked the task.
 */
function blockedByCatalogChange(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
): boolean {
  if (record.interrupted) return false;
  const decision = rt.state.decisions[decisionKeyOf(record.role)];
  if (!decision) return false;
  const check = checkDecision(decision, ctx.catalogFacts);
  if (check.valid) return false;
  blockTask(ctx, rt, {
    stage: decision.stage,
    reason: `catalog changed while attempt ${record.id} ran: ${check.reason}`,
    evidence: [
      `decided revision: ${check.oldRevision} (${decision.catalogSource})`,
      `current revision: ${check.newRevision} (${ctx.catalogFacts.source})`,
      `attempt ${record.id} ended ${record.result ?? 'unjudged'}; its result is not used`,
    ],
    catalog: { old: check.oldRevision, new: check.newRevision },
  });
  return true;
}

/**
 * A task whose folder was moved to the archive before the dispatcher archived it (by a person,
 * or by an agent: it has the folder's path), once its leftover attempts ended: never done by
 * the folder alone, whatever `complete.log` it holds. It is blocked with that reason; a
 * person who archived it on purpose records it with `switchyard resolve <task> --done`.
 */
async function settleArchivedByHand(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const dir = rt.archivedByHand!;
  const complete = existsSync(join(dir, COMPLETE_LOG));
  blockTask(ctx, rt, {
    stage: 'archive',
    reason: complete
      ? unrecordedReason(rt.id, relative(ctx.workspace, dir))
      : `archived by hand without ${COMPLETE_LOG} (${relative(ctx.workspace, dir)})`,
    evidence: [
      `the folder was moved to the archive in phase ${rt.state.phase}, before the task was done`,
      complete
        ? `${COMPLETE_LOG} there was not written by the dispatcher`
        : `move it back under agent-task/${rt.group}/ to run it`,
    ],
  });
  await persist(ctx, rt);
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
        ...attemptTimeLimitMs(ctx, ctx.options.catalog.catalog.targets[record.target]?.runtime),
        isRetryLine: ctx.options.plugins.isRetryLineFor(locator.agent),
        ...(ctx.options.plugins.transcriptFor(locator.agent)
          ? { transcript: ctx.options.plugins.transcriptFor(locator.agent)! }
          : {}),
        ...(ctx.secrets.length > 0 ? { secrets: ctx.secrets } : {}),
        ...(ctx.options.killGraceMs !== undefined ? { killGraceMs: ctx.options.killGraceMs } : {}),
      });
      if (handle) {
        record.status = 'running';
        record.pid = handle.pid;
        // The state write that carries the sandbox may not have made it before the crash; the
        // runner's locator, written before the agent started, says it too.
        if (!record.sandbox && locator.sandbox) record.sandbox = locator.sandbox.mode;
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
          ...(record.sandbox ? { sandbox: record.sandbox } : {}),
        });
        const result = await awaitAttempt(ctx, rt, record, handle);
        verdict = result.verdict;
      }
    } else {
      // Spawned but its runner had not written the locator yet: wait for the process to go.
      await waitForExit(ctx, pid);
    }
    if (verdict === undefined) {
      verdict = await judgeGoneAttempt(ctx, record);
      await settleGoneAttempt(ctx, rt, record, verdict);
    }
    if (record.status !== 'finished') finish(ctx, record, verdict);
    await checkSource(ctx, rt, record);
    takeReturnedPlan(ctx, rt, record);
    if (!rt.archivedByHand && !blockedByCatalogChange(ctx, rt, record))
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
