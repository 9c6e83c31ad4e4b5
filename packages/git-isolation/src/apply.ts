import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ApplyJournal,
  type ApplyRequest,
  type ApplyResult,
  type ApplyStep,
  type SourceCheck,
  SwitchyardError,
  type WorktreeRecord,
  type WriteSetReport,
} from '@switchyard/core';
import { withApplyLock } from './apply-lock.js';
import { inApplyQueue, StoppedWhileQueued, whileSourceMoves } from './apply-queue.js';
import { commitMessage, commitWorktree, replayOnto } from './commit.js';
import { firstLine, git, nulList } from './git.js';
import { inspectWorktree } from './inspect.js';
import type { IsolationContext } from './isolation-context.js';
import { scratchIndexFile } from './layout.js';
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
import { timed } from './timing.js';

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
  const record = await readRecord(ctx, taskId);
  if (!record)
    throw new SwitchyardError('SY_INTERNAL', `task ${taskId} has no worktree to apply`, {
      hint: 'ensureWorktree is called at admission; run the task again',
    });
  if (record.state === 'applied' && record.appliedCommit) return appliedAgain(ctx, record);
  if (request.stop?.aborted) return notStarted(taskId);
  const report = await timed(ctx.onTiming, 'inspect', () =>
    inspectWorktree(ctx, record, request.writeSet),
  );
  const refusal = refusalOf(report);
  if (refusal) return { status: 'refused', taskId, report, message: refusal };
  const queuedAt = performance.now();
  try {
    // This process's applies wait their turn on a promise; the file lock keeps other processes out.
    return await inApplyQueue(ctx.layout.lockFile, request.stop, () =>
      withApplyLock(ctx, options.lockTimeoutMs, request.stop, async () => {
        ctx.onTiming?.('wait', performance.now() - queuedAt);
        // Asked to stop while it waited: it stays approved and applies on the next run.
        if (request.stop?.aborted) return notStarted(taskId);
        // An earlier apply of this task that a crash interrupted: finished or undone first.
        const earlier = await recoverTask(ctx, taskId);
        if (earlier?.outcome === 'completed') {
          const done = await readRecord(ctx, taskId);
          if (done?.appliedCommit) return appliedAgain(ctx, done);
        }
        return applyLocked(ctx, record, request, report);
      }),
    );
  } catch (error) {
    if (error instanceof StoppedWhileQueued || (request.stop?.aborted && isAbortReason(error)))
      return notStarted(taskId);
    throw error;
  }
}

/** The run stopped before this apply started: nothing was touched. */
const notStarted = (taskId: string): ApplyResult => ({
  status: 'interrupted',
  taskId,
  message: 'the run stopped before this apply started; it applies on the next run',
});

const isAbortReason = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');

function refusalOf(report: WriteSetReport): string | undefined {
  if (report.gitMetadata.length > 0)
    return `refused: changes to git metadata: ${report.gitMetadata.join(', ')}`;
  if (report.ignored?.length)
    return `refused: write-set files ignored by git: ${report.ignored.join(', ')}`;
  if (report.escapingLinks?.length)
    return `refused: links out of the worktree (symbolic links pointing outside it, hard links): ${report.escapingLinks.join(', ')}`;
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
  const step = (next: ApplyStep, fields?: Partial<ApplyJournal>) =>
    timed(ctx.onTiming, 'journal', () => recordStep(ctx, journal, next, fields));
  const aborted = () => request.abort?.aborted === true;
  const abortedUntouched = async (): Promise<ApplyResult> => {
    await removeJournal(ctx, taskId);
    return {
      status: 'interrupted',
      taskId,
      message: 'the apply was aborted before the source was touched; it applies on the next run',
    };
  };
  journal = await step('commit');
  await pausePoint('commit');
  const taskCommit = await timed(ctx.onTiming, 'commit', () =>
    commitWorktree(record, message, taskFiles, scratchIndexFile(layout, taskId)),
  );
  if (aborted()) return abortedUntouched();

  journal = await step('rebase', { taskCommit, sourceTip: tip });
  await pausePoint('rebase');
  const replay = await timed(ctx.onTiming, 'replay', () =>
    replayOnto(repo, record.baseCommit, taskCommit, tip, message, taskFiles),
  );
  if (aborted()) return abortedUntouched();
  if ('conflict' in replay) {
    await removeJournal(ctx, taskId);
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

  journal = await step('advance', { sourceCommit: replay.commit, files: replay.files });
  await pausePoint('advance');
  const advanced = await timed(ctx.onTiming, 'advance', () =>
    whileSourceMoves(ctx.layout.lockFile, () =>
      advanceSource(
        repo,
        record.sourceBranch,
        tip,
        replay.commit,
        replay.files,
        `switchyard: apply ${taskId}`,
        { branch: record.branch, commit: taskCommit },
      ),
    ),
  );
  if (!advanced) {
    await removeJournal(ctx, taskId);
    return waiting(`waiting: ${record.sourceBranch} moved during the apply; apply again`);
  }

  journal = await step('dod');
  await pausePoint('dod');
  const check = aborted()
    ? { ok: false, detail: '' }
    : await timed(ctx.onTiming, 'check', () => runCheck(request.check, repo.workspace));
  // Aborted (a second SIGINT) while it moved the source or ran its check: undone through the
  // journal like a failed check, and the task stays approved for the next run.
  if (aborted()) {
    journal = await step('rollback', { reason: 'the apply was aborted' });
    await rollbackSource(ctx, journal);
    await step('rolled-back');
    await removeJournal(ctx, taskId);
    return {
      status: 'interrupted',
      taskId,
      message: `the apply was aborted; commit ${replay.commit} was rolled back and the task applies on the next run`,
      rolledBack: replay.commit,
    };
  }
  if (check.ok) {
    journal = await step('verified');
    await pausePoint('verified');
    await timed(ctx.onTiming, 'finish', () => finishApplied(ctx, journal));
    return {
      status: 'applied',
      taskId,
      baseCommit: record.baseCommit,
      sourceTip: tip,
      sourceCommit: replay.commit,
      files: replay.files.map((f) => toWorkspacePath(repo, f)),
    };
  }
  journal = await step('rollback', { reason: check.detail });
  await pausePoint('rollback');
  await rollbackSource(ctx, journal);
  await step('rolled-back');
  await pausePoint('rolled-back');
  await removeJournal(ctx, taskId);
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
