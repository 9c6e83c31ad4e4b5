import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ApplyJournal,
  type ApplyRequest,
  type ApplyResult,
  type SourceCheck,
  SwitchyardError,
  type WorktreeRecord,
  type WriteSetReport,
} from '@switchyard/core';
import { withApplyLock } from './apply-lock.js';
import { commitMessage, commitWorktree, replayOnto } from './commit.js';
import { firstLine, git, nulList } from './git.js';
import { inspectWorktree } from './inspect.js';
import { pausePoint } from './pause.js';
import { readRecord, recordStep, removeJournal } from './records.js';
import { finishApplied, recoverTask, rollbackSource } from './recover.js';
import {
  currentBranch,
  type Repository,
  resolveCommit,
  toRepoPath,
  toWorkspacePath,
} from './repository.js';
import { advanceSource, dirtySourceFiles } from './source-tree.js';
import type { IsolationContext } from './worktree.js';

/** Options of {@link applyTask}. */
export interface ApplyOptions {
  /** How long to wait for another task's apply in this repository (default: a day). */
  lockTimeoutMs?: number;
}

/**
 * Applies a reviewed task onto the source branch, one apply at a time per repository:
 * commit the worktree, replay it onto the source tip, move the source branch and the
 * task's files, run the source DoD, roll back exactly that commit when it fails. Each step
 * is journaled before it is taken; {@link recoverApplies} finishes or undoes an apply a
 * crash interrupted. Applying an already applied task returns its result again.
 */
export async function applyTask(
  ctx: IsolationContext,
  request: ApplyRequest,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const { taskId } = request;
  const record = await readRecord(ctx.layout, taskId);
  if (!record)
    throw new SwitchyardError('SY_INTERNAL', `task ${taskId} has no worktree to apply`, {
      hint: 'ensureWorktree is called at admission; run the task again',
    });
  if (record.state === 'applied' && record.appliedCommit) return appliedAgain(ctx, record);
  const report = await inspectWorktree(ctx, record, request.writeSet);
  const refusal = refusalOf(report);
  if (refusal) return { status: 'refused', taskId, report, message: refusal };
  return withApplyLock(ctx, options.lockTimeoutMs, async () => {
    // An earlier apply of this task that a crash interrupted: finished or undone first.
    const earlier = await recoverTask(ctx, taskId);
    if (earlier?.outcome === 'completed') {
      const done = await readRecord(ctx.layout, taskId);
      if (done?.appliedCommit) return appliedAgain(ctx, done);
    }
    return applyLocked(ctx, record, request, report);
  });
}

function refusalOf(report: WriteSetReport): string | undefined {
  if (report.gitMetadata.length > 0)
    return `refused: changes to git metadata: ${report.gitMetadata.join(', ')}`;
  if (report.ignored?.length)
    return `refused: write-set files ignored by git: ${report.ignored.join(', ')}`;
  if (report.escapingLinks?.length)
    return `refused: symbolic links pointing outside the repository: ${report.escapingLinks.join(', ')}`;
  if (report.outside.length > 0)
    return `refused: files outside the write set: ${report.outside.join(', ')}`;
  if (report.empty) return 'refused: no change was made';
  return undefined;
}

async function applyLocked(
  ctx: IsolationContext,
  record: WorktreeRecord,
  request: ApplyRequest,
  report: WriteSetReport,
): Promise<ApplyResult> {
  const { repo, layout } = ctx;
  const { taskId } = request;
  const waiting = (message: string, files: string[] = []): ApplyResult => ({
    status: 'waiting',
    taskId,
    files,
    message,
  });
  if (existsSync(join(repo.gitDir, 'index.lock')))
    return waiting('waiting: git is busy in the source checkout (.git/index.lock exists)');
  const taskFiles = report.changed.map((f) => toRepoPath(repo, f));
  // The source checkout's branch and tip (one rev-parse) and the user's uncommitted work on
  // the task's files, read side by side; nothing is written before both are known.
  const [source, dirty] = await Promise.all([
    sourceState(repo, record.sourceBranch),
    dirtySourceFiles(repo, taskFiles),
  ]);
  if (source.head !== record.sourceBranch)
    return waiting(
      `waiting: the source checkout is on ${source.head ?? 'a detached HEAD'}, not ${record.sourceBranch}`,
    );
  if (dirty.length > 0) {
    const files = dirty.map((f) => toWorkspacePath(repo, f));
    return waiting(`waiting: dirty source overlaps ${files.join(', ')}`, files);
  }
  const tip = source.tip;
  if (!tip)
    throw new SwitchyardError('SY_GIT', `branch ${record.sourceBranch} is gone`, {
      file: repo.root,
    });
  const message = commitMessage(request);

  let journal: ApplyJournal = {
    schema: 1,
    taskId,
    sourceBranch: record.sourceBranch,
    baseCommit: record.baseCommit,
    step: 'commit',
    files: [],
    history: [],
  };
  journal = await recordStep(layout, journal, 'commit');
  await pausePoint('commit');
  const taskCommit = await commitWorktree(record, message);

  journal = await recordStep(layout, journal, 'rebase', { taskCommit, sourceTip: tip });
  await pausePoint('rebase');
  const replay = await replayOnto(repo, record.baseCommit, taskCommit, tip, message, taskFiles);
  if ('conflict' in replay) {
    await removeJournal(layout, taskId);
    const files = replay.conflict.map((f) => toWorkspacePath(repo, f));
    return {
      status: 'conflict',
      taskId,
      files,
      sourceTip: tip,
      taskCommit,
      message: `conflict: ${replay.why}${files.length > 0 ? `: ${files.join(', ')}` : ''}`,
    };
  }

  journal = await recordStep(layout, journal, 'advance', {
    sourceCommit: replay.commit,
    files: replay.files,
  });
  await pausePoint('advance');
  const advanced = await advanceSource(
    repo,
    record.sourceBranch,
    tip,
    replay.commit,
    replay.files,
    `switchyard: apply ${taskId}`,
    { branch: record.branch, commit: taskCommit },
  );
  if (!advanced) {
    await removeJournal(layout, taskId);
    return waiting(`waiting: ${record.sourceBranch} moved during the apply; apply again`);
  }

  journal = await recordStep(layout, journal, 'dod');
  await pausePoint('dod');
  const check = await runCheck(request.check, repo.workspace);
  if (check.ok) {
    journal = await recordStep(layout, journal, 'verified');
    await pausePoint('verified');
    await finishApplied(ctx, journal);
    return {
      status: 'applied',
      taskId,
      baseCommit: record.baseCommit,
      sourceTip: tip,
      sourceCommit: replay.commit,
      files: replay.files.map((f) => toWorkspacePath(repo, f)),
    };
  }
  journal = await recordStep(layout, journal, 'rollback', { reason: check.detail });
  await pausePoint('rollback');
  await rollbackSource(ctx, journal);
  await recordStep(layout, journal, 'rolled-back');
  await pausePoint('rolled-back');
  await removeJournal(layout, taskId);
  return {
    status: 'dod-failed',
    taskId,
    baseCommit: record.baseCommit,
    sourceTip: tip,
    sourceCommit: replay.commit,
    rolledBack: true,
    detail: check.detail,
  };
}

/** The branch the source checkout has checked out, and the tip of `branch`. */
async function sourceState(
  repo: Repository,
  branch: string,
): Promise<{ head: string | undefined; tip: string | undefined }> {
  const probe = await git(
    repo.root,
    ['rev-parse', `refs/heads/${branch}^{commit}`, '--symbolic-full-name', 'HEAD'],
    { allow: [128] },
  );
  const [tip, head] = probe.stdout.split('\n');
  if (probe.exitCode === 0 && tip && head?.startsWith('refs/heads/'))
    return { head: head.slice('refs/heads/'.length), tip };
  // A detached HEAD or a missing branch: asked one at a time, so each answer is exact.
  return {
    head: await currentBranch(repo),
    tip: await resolveCommit(repo.root, `refs/heads/${branch}`),
  };
}

async function runCheck(
  check: SourceCheck | undefined,
  cwd: string,
): Promise<{ ok: boolean; detail: string }> {
  if (!check) return { ok: true, detail: '' };
  try {
    const outcome = await check(cwd);
    return {
      ok: outcome.ok,
      detail: outcome.detail ?? (outcome.ok ? '' : 'the definition of done failed on the source'),
    };
  } catch (error) {
    return {
      ok: false,
      detail: `the definition of done could not run on the source: ${(error as Error).message}`,
    };
  }
}

async function appliedAgain(ctx: IsolationContext, record: WorktreeRecord): Promise<ApplyResult> {
  const commit = record.appliedCommit as string;
  const parent = firstLine(await git(ctx.repo.root, ['rev-parse', `${commit}^`]));
  const files = nulList(
    await git(ctx.repo.root, ['diff', '--name-only', '-z', '--no-renames', parent, commit, '--']),
  );
  return {
    status: 'applied',
    taskId: record.taskId,
    baseCommit: record.baseCommit,
    sourceTip: parent,
    sourceCommit: commit,
    files: files.map((f) => toWorkspacePath(ctx.repo, f)),
  };
}
