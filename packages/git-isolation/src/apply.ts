import {
  type ApplyRequest,
  type ApplyResult,
  SwitchyardError,
  type WorktreeRecord,
  type WriteSetReport,
} from '@switchyard/core';
import { applyJournaled } from './apply-journaled.js';
import { withApplyLock } from './apply-lock.js';
import { checkSourceReady } from './apply-preflight.js';
import { inApplyQueue, StoppedWhileQueued } from './apply-queue.js';
import { firstLine, git, nulList } from './git.js';
import { inspectWorktree } from './inspect.js';
import type { IsolationContext } from './isolation-context.js';
import { readRecord } from './records.js';
import { recoverTask } from './recover.js';
import { toWorkspacePath } from './repository.js';
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

/** Under the lock: the source checkout checked, then the journaled apply. */
async function applyLocked(
  ctx: IsolationContext,
  record: WorktreeRecord,
  request: ApplyRequest,
  report: WriteSetReport,
): Promise<ApplyResult> {
  const source = await checkSourceReady(ctx.repo, request.taskId, record, report);
  if ('status' in source) return source;
  return applyJournaled(ctx, record, request, source);
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
