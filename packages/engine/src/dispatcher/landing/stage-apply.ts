import { join, relative } from 'node:path';
import type { ApplyResult, SourceCheck } from '@switchyard/core';
import { maskSecretsInFile } from '@switchyard/runner-kit';
import { readPlanText } from '@switchyard/tasks';
import { ensureOwnedDir, writeOwnedFile } from '@switchyard/utils';
import { advance } from '../advance.js';
import { runGateCheck } from '../checks/gate-check.js';
import { checkSourceAfterApply } from '../checks/source-gates.js';
import { writeSetCorrection } from '../checks/stage-writeset.js';
import { allowedPaths } from '../checks/write-set-scope.js';
import { persist } from '../context.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';
import { filesCell, writeGitStageRows } from './git-stage-rows.js';
import { type ApplyFiles, failApply, settleApply } from './settle-apply.js';

/** The patch an `apply: patch` task keeps in its (archived) folder. */
export const TASK_PATCH_FILE = 'task.patch';

/**
 * Worktree isolation, after review APPROVED: the task's changes land on the source branch
 * as one commit (serialized per repository by the isolation), then the plan's definition of
 * done and the project's source gates run on the source; a failure rolls back exactly that
 * commit. A conflict recreates the worktree from the new tip and sends the worker back with
 * the conflicting files; the user's uncommitted changes to the task's files make it wait.
 * Every git step is journaled by the isolation before it is taken, and the phase stays
 * `apply` until the result is persisted, so a restart repeats the (idempotent) apply.
 * PLAN `apply: patch`: the diff is kept as `task.patch` in the task folder instead.
 */
export async function runApplyStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const isolation = isolationOf(ctx);
  const facts = rt.state.isolation;
  if (!isolation || !facts) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  const startedAt = ctx.now();
  const writeSet = await allowedPaths(isolation, rt);
  if (rt.task.apply === 'patch') {
    const report = await isolation.inspect(rt.id, writeSet);
    const violation = writeSetCorrection(report, writeSet);
    const row = { role: 'apply' as const, startedAt, label: 'git diff (apply: patch)' };
    if (violation) {
      const file = writeGitStageRows(ctx, rt, {
        ...row,
        artifact: `refused: ${violation.summary.slice(0, 160)}`,
        result: 'refused',
        evidence: { ...report, correction: violation.summary },
      });
      return failApply(ctx, rt, { ...violation, file });
    }
    const file = join(rt.task.dir, TASK_PATCH_FILE);
    writeOwnedFile(file, await isolation.patch(rt.id), 'replace');
    // masked in place, same length: the patch keeps its shape, no credential in the archive
    maskSecretsInFile(file, ctx.secrets);
    facts.patchFile = TASK_PATCH_FILE;
    writeGitStageRows(ctx, rt, {
      ...row,
      artifact: TASK_PATCH_FILE,
      result: 'success',
      evidence: { patchFile: TASK_PATCH_FILE, files: report.changed },
    });
    ctx.bus.emit({
      type: 'task.isolation',
      task: rt.id,
      step: 'patch',
      detail: `apply: patch: the diff is kept as ${relative(ctx.workspace, file)}; the source is untouched`,
    });
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  const files: ApplyFiles = {};
  const result = await isolation.apply({
    taskId: rt.id,
    title: planTitle(rt),
    targets: [...new Set(rt.state.attempts.map((a) => a.target))],
    attempts: rt.state.attempts.length,
    writeSet,
    check: sourceCheck(ctx, rt, files),
    stop: ctx.signal,
    abort: ctx.applyAbort,
    ...(ctx.options.backlog ? { confirm: () => ctx.leases.confirm(rt.id) } : {}),
  });
  // Stopped before it started, or aborted and rolled back: still approved, it applies next run.
  if (result.status === 'interrupted') return announceInterrupted(ctx, rt, result);
  if (result.status !== 'waiting')
    files.evidence = writeGitStageRows(ctx, rt, {
      role: 'apply',
      startedAt,
      label: `git apply onto ${facts.sourceBranch}`,
      ...applyRow(result),
      evidence: { ...result },
    });
  await settleApply(ctx, rt, result, files);
}

/** An apply the stop request kept from starting, or that a second one rolled back. */
function announceInterrupted(
  ctx: DispatchContext,
  rt: TaskRuntime,
  result: Extract<ApplyResult, { status: 'interrupted' }>,
): void {
  if (!result.rolledBack) return;
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'rolled-back',
    detail: result.message,
    commit: result.rolledBack,
  });
}

/** The work-log cells of a settled apply: the source commit it made (or undid), or why not. */
function applyRow(result: Exclude<ApplyResult, { status: 'waiting' | 'interrupted' }>): {
  artifact: string;
  result: string;
} {
  switch (result.status) {
    case 'applied':
      return { artifact: `commit ${result.sourceCommit}`, result: 'success' };
    case 'dod-failed':
      return { artifact: `rolled back ${result.sourceCommit}`, result: 'rolled-back' };
    case 'conflict':
      return { artifact: filesCell('conflict', result.files), result: 'conflict' };
    case 'refused':
      return { artifact: `refused: ${result.message.slice(0, 160)}`, result: 'refused' };
  }
}

/** The plan's definition of done, then the project's source gates, in the source tree. */
function sourceCheck(ctx: DispatchContext, rt: TaskRuntime, files: ApplyFiles): SourceCheck {
  return async (cwd) => {
    const done = rt.task.definitionOfDone;
    if (done) {
      const dir = join(ctx.stateDir, 'gates', rt.id);
      ensureOwnedDir(ctx.workspace, dir);
      const outputFile = join(dir, `source.${rt.state.planLoop}.${Date.now().toString(36)}.log`);
      files.sourceOutput = outputFile;
      const verdict = await runGateCheck(ctx, rt, {
        done,
        cwd,
        outputFile,
        afterApply: true,
        signal: ctx.applyAbort,
      });
      // Aborted while it ran: the commit is not verified, so it does not stay.
      if (!verdict)
        return {
          ok: false,
          detail: `the apply was aborted while \`${done.command}\` ran on the source`,
        };
      if (!verdict.passed)
        return {
          ok: false,
          detail: [
            `\`${done.command}\` on the source: ${verdict.why}`,
            ...verdict.result.tail.slice(-30),
            `output: ${outputFile}`,
          ].join('\n'),
        };
    }
    return checkSourceAfterApply(ctx, rt, cwd);
  };
}

/** The commit subject: the plan's first `# ` heading, else the task id. */
function planTitle(rt: TaskRuntime): string {
  const plan = join(rt.task.dir, 'PLAN.md');
  const read = readPlanText(plan, plan);
  const text = 'text' in read ? read.text : '';
  const heading = /^#[ \t]+(.+)$/m.exec(text)?.[1]?.trim();
  return heading || rt.id;
}
