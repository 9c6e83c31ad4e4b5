import type { ApplyResult, Correction } from '@switchyard/core';
import { advance } from '../advance.js';
import { writeSetCorrection } from '../checks/stage-writeset.js';
import { allowedPaths } from '../checks/write-set-scope.js';
import { persist } from '../context.js';
import { waitUntil } from '../task-wait.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';
import { correctOrBlock } from './apply-failure.js';

/** How long an apply waits before it looks at the user's uncommitted source changes again. */
export const APPLY_WAIT_MS = 2_000;

/** Files an apply left: its evidence (the work-log row's) and the source check's output. */
export interface ApplyFiles {
  evidence?: string;
  sourceOutput?: string;
}

type Settled<S extends ApplyResult['status']> = Extract<ApplyResult, { status: S }>;

/**
 * An apply's result -> the task's next step: on to the archive (applied), another look after
 * a while (waiting), or back to the worker with a correction (conflict, rolled back, refused).
 */
export async function settleApply(
  ctx: DispatchContext,
  rt: TaskRuntime,
  result: ApplyResult,
  files: ApplyFiles,
): Promise<void> {
  if (result.status !== 'waiting') delete rt.state.isolation!.waiting;
  switch (result.status) {
    case 'interrupted':
      return;
    case 'applied':
      return settleApplied(ctx, rt, result);
    case 'waiting':
      return settleWaiting(ctx, rt, result.message);
    case 'conflict':
      return failApply(ctx, rt, await conflictCorrection(ctx, rt, result, files));
    case 'dod-failed':
      return failApply(ctx, rt, rolledBackCorrection(ctx, rt, result, files));
    case 'refused':
      return failApply(ctx, rt, await refusedCorrection(ctx, rt, result, files));
  }
}

/** A failed apply: back to the worker with the correction, or blocked once the budget is spent. */
export async function failApply(
  ctx: DispatchContext,
  rt: TaskRuntime,
  correction: Correction,
): Promise<void> {
  correctOrBlock(ctx, rt, {
    stage: 'apply',
    correction,
    blockReason: (n) => `${n} consecutive failed applies: ${correction.summary}`,
  });
  await persist(ctx, rt);
}

function settleApplied(ctx: DispatchContext, rt: TaskRuntime, result: Settled<'applied'>) {
  const facts = rt.state.isolation!;
  facts.sourceCommit = result.sourceCommit;
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'applied',
    detail: `committed ${result.sourceCommit.slice(0, 12)} onto ${facts.sourceBranch} (${result.files.length} file(s))`,
    files: result.files,
    commit: result.sourceCommit,
  });
  advance(rt, 'passed');
  return persist(ctx, rt);
}

/** The user's uncommitted source changes overlap the task's files: look again in a while. */
function settleWaiting(ctx: DispatchContext, rt: TaskRuntime, message: string) {
  const facts = rt.state.isolation!;
  const changed = facts.waiting !== message;
  facts.waiting = message;
  if (changed)
    ctx.bus.emit({ type: 'task.waiting', task: rt.id, reason: 'apply', detail: message });
  advance(rt, 'apply-waiting');
  waitUntil(ctx, rt, new Date(ctx.now().getTime() + APPLY_WAIT_MS));
  return persist(ctx, rt);
}

/** Work landed on the source meanwhile: a fresh worktree from the new tip for the worker. */
async function conflictCorrection(
  ctx: DispatchContext,
  rt: TaskRuntime,
  result: Settled<'conflict'>,
  files: ApplyFiles,
): Promise<Correction> {
  const facts = rt.state.isolation!;
  const record = await isolationOf(ctx)!.recreateWorktree(rt.id);
  Object.assign(facts, {
    branch: record.branch,
    path: record.path,
    workdir: record.workdir,
    baseCommit: record.baseCommit,
  });
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'conflict',
    detail: `${result.message}; a fresh worktree from ${record.baseCommit.slice(0, 12)} goes back to the worker`,
    files: result.files,
  });
  return {
    source: 'apply',
    summary: `your changes conflicted with work that landed on ${facts.sourceBranch} meanwhile (${result.message}); the worktree was recreated from the new tip ${record.baseCommit.slice(0, 12)}: redo the task on top of it. Your previous version is commit ${result.taskCommit}`,
    evidence: result.files.map((f) => `conflict: ${f}`),
    ...(files.evidence ? { file: files.evidence } : {}),
  };
}

/** The user's changes the rollback left in place (they changed those files while the check ran). */
const keptNote = (kept: readonly string[] | undefined): string =>
  kept?.length
    ? `; your changes to ${kept.join(', ')}, made while the check ran, were kept as uncommitted changes (they include the rolled-back change): the task applies again once you commit or revert them`
    : '';

/** The definition of done failed on the source: the commit was rolled back. */
function rolledBackCorrection(
  ctx: DispatchContext,
  rt: TaskRuntime,
  result: Settled<'dod-failed'>,
  files: ApplyFiles,
): Correction {
  const facts = rt.state.isolation!;
  facts.rolledBack = [...facts.rolledBack, result.sourceCommit];
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'rolled-back',
    detail: `the definition of done failed on the source; commit ${result.sourceCommit.slice(0, 12)} was rolled back (${result.detail})${keptNote(result.kept)}`,
    commit: result.sourceCommit,
    ...(result.kept ? { files: result.kept } : {}),
  });
  const file = files.sourceOutput ?? files.evidence;
  return {
    source: 'apply',
    summary: `the definition of done failed on the source branch after your change was applied, so it was rolled back: ${result.detail}`,
    evidence: result.detail.split('\n').slice(-40),
    ...(file ? { file } : {}),
  };
}

/** The isolation plugin refused the change (files outside the write set, git metadata, links). */
async function refusedCorrection(
  ctx: DispatchContext,
  rt: TaskRuntime,
  result: Settled<'refused'>,
  files: ApplyFiles,
): Promise<Correction> {
  const isolation = isolationOf(ctx)!;
  const correction = {
    ...(writeSetCorrection(result.report, await allowedPaths(isolation, rt)) ?? {
      source: 'apply' as const,
      summary: result.message,
      evidence: [],
    }),
    ...(files.evidence ? { file: files.evidence } : {}),
  };
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'refused',
    detail: result.message,
    files: [
      ...result.report.gitMetadata,
      ...(result.report.escapingLinks ?? []),
      ...result.report.outside,
    ],
  });
  return correction;
}
