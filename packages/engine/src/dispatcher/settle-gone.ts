import { join, relative } from 'node:path';
import type { AttemptRecord, Classification } from '@switchyard/core';
import {
  attemptPaths,
  finalizeLocator,
  maskSecretsBelow,
  readLocator,
  redactDeep,
} from '@switchyard/runner-kit';
import { collectAuxiliaryLogs } from './agent/auxiliary-logs.js';
import { finish } from './agent/await-attempt.js';
import { lastWrite } from './checks/judge-gone.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/**
 * Settles an attempt judged after a restart from its files (its dispatcher died; the agent
 * ended unwatched or is gone): everything a watched attempt gets when it ends. The record is
 * finished with its real end, the captures are masked, `locator.json` gets its final result
 * (no `"result": "running"` left behind), the work log its FINISH row and the run its
 * `attempt.finished` event (marked `recovered`). The caller applies the verdict and persists.
 */
export async function settleGoneAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  judged: Classification,
): Promise<void> {
  // Evidence lines quote agent output: masked before the locator, the state and the event.
  const verdict = redactDeep(judged, ctx.secrets);
  finish(ctx, record, verdict);
  collectAuxiliaryLogs(ctx, record);
  maskSecretsBelow(record.attemptDir, ctx.secrets);
  const locator = await readLocator(record.attemptDir).catch(() => undefined);
  const endedAt = locator?.endedAt
    ? new Date(locator.endedAt)
    : lastWrite(attemptPaths(record.attemptDir), ctx.now());
  record.endedAt = endedAt.toISOString();
  if (locator) await finalizeLocator(record.attemptDir, verdict, { endedAt }).catch(() => {});
  await finishRowIfMissing(ctx, rt, record, verdict.class);
  const started = Date.parse(locator?.startedAt ?? record.startedAt);
  ctx.bus.emit({
    type: 'attempt.finished',
    task: rt.id,
    role: record.role,
    planLoop: record.planLoop,
    attempt: record.id,
    target: record.target,
    result: verdict.class,
    exitCode: record.exitCode ?? null,
    signal: record.signal ?? null,
    evidence: record.evidence ?? [],
    // wall-clock times of a process nobody watched: all there is; never below 0
    durationMs: Number.isFinite(started) ? Math.max(0, endedAt.getTime() - started) : 0,
    attemptDir: record.attemptDir,
    recovered: true,
  });
}

/**
 * The FINISH row of an attempt judged after a restart, when its START row is in the group's
 * work log without one (the dispatcher died before writing it): the START row's cells again,
 * so the two pair up whatever the catalog says now.
 */
async function finishRowIfMissing(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  result: string,
): Promise<void> {
  const locator = relative(ctx.workspace, join(record.attemptDir, 'locator.json'));
  const open = (await ctx.workLog.openStarts(rt.group)).find((o) => o.row.locator === locator);
  if (!open) return;
  ctx.workLog.finish(rt.group, { ...open.row, kind: 'FINISH', time: ctx.now(), result });
}
