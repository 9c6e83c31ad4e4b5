import type {
  ApplyJournal,
  ApplyRequest,
  ApplyResult,
  ApplyStep,
  SourceCheck,
  WorktreeRecord,
} from '@switchyard/core';
import type { ReadySource } from './apply-preflight.js';
import { waitingApply } from './apply-preflight.js';
import { whileSourceMoves } from './apply-queue.js';
import { commitMessage, commitWorktree, replayOnto } from './commit.js';
import type { IsolationContext } from './isolation-context.js';
import { scratchIndexFile } from './layout.js';
import { pausePoint } from './pause.js';
import { recordStep, removeJournal } from './records.js';
import { finishApplied, rollbackSource } from './recover.js';
import { toWorkspacePath } from './repository.js';
import { advanceSource } from './source-tree.js';
import { timed } from './timing.js';

/** One apply under the lock, and the journal it has written so far. */
interface JournaledApply extends ReadySource {
  ctx: IsolationContext;
  record: WorktreeRecord;
  request: ApplyRequest;
  message: string;
  journal: ApplyJournal;
}

/** The task's commit replayed onto the source tip; the source has not moved yet. */
interface Replayed {
  taskCommit: string;
  commit: string;
  files: string[];
}

/**
 * Applies the task onto a ready source checkout in journaled steps (commit, rebase, advance,
 * dod, then verified or rollback): each step is recorded before it is taken, so recovery
 * knows whether to finish or undo an apply a crash interrupted.
 */
export async function applyJournaled(
  ctx: IsolationContext,
  record: WorktreeRecord,
  request: ApplyRequest,
  source: ReadySource,
): Promise<ApplyResult> {
  const run: JournaledApply = {
    ctx,
    record,
    request,
    ...source,
    message: commitMessage(request),
    journal: {
      schema: 1,
      taskId: request.taskId,
      sourceBranch: record.sourceBranch,
      baseCommit: record.baseCommit,
      step: 'commit',
      files: [],
      history: [],
    },
  };
  const replayed = await commitAndReplay(run);
  if ('status' in replayed) return replayed;
  if (!(await advance(run, replayed))) {
    await removeJournal(ctx, request.taskId);
    return waitingApply(
      request.taskId,
      `waiting: ${record.sourceBranch} moved during the apply; apply again`,
    );
  }
  return checkOnSource(run, replayed);
}

async function step(run: JournaledApply, next: ApplyStep, fields?: Partial<ApplyJournal>) {
  run.journal = await timed(run.ctx.onTiming, 'journal', () =>
    recordStep(run.ctx, run.journal, next, fields),
  );
}

const aborted = (run: JournaledApply) => run.request.abort?.aborted === true;

async function abortedUntouched(run: JournaledApply): Promise<ApplyResult> {
  await removeJournal(run.ctx, run.request.taskId);
  return {
    status: 'interrupted',
    taskId: run.request.taskId,
    message: 'the apply was aborted before the source was touched; it applies on the next run',
  };
}

/** Commits the worktree and replays that commit onto the source tip; the source stays as it is. */
async function commitAndReplay(run: JournaledApply): Promise<Replayed | ApplyResult> {
  const { ctx, record, request, tip, taskFiles, message } = run;
  await step(run, 'commit');
  await pausePoint('commit');
  const taskCommit = await timed(ctx.onTiming, 'commit', () =>
    commitWorktree(record, message, taskFiles, scratchIndexFile(ctx.layout, request.taskId)),
  );
  if (aborted(run)) return abortedUntouched(run);

  await step(run, 'rebase', { taskCommit, sourceTip: tip });
  await pausePoint('rebase');
  const replay = await timed(ctx.onTiming, 'replay', () =>
    replayOnto(ctx.repo, record.baseCommit, taskCommit, tip, message, taskFiles),
  );
  if (aborted(run)) return abortedUntouched(run);
  if ('conflict' in replay) {
    await removeJournal(ctx, request.taskId);
    const files = replay.conflict.map((f) => toWorkspacePath(ctx.repo, f));
    return {
      status: 'conflict',
      taskId: request.taskId,
      files,
      sourceTip: tip,
      taskCommit,
      message: `conflict: ${replay.why}${files.length > 0 ? `: ${files.join(', ')}` : ''}`,
    };
  }
  return { taskCommit, commit: replay.commit, files: replay.files };
}

/** Moves the source branch and the task's files to the replayed commit; false if the branch moved. */
async function advance(run: JournaledApply, replayed: Replayed): Promise<boolean> {
  const { ctx, record, request, tip } = run;
  await step(run, 'advance', { sourceCommit: replayed.commit, files: replayed.files });
  await pausePoint('advance');
  return timed(ctx.onTiming, 'advance', () =>
    whileSourceMoves(ctx.layout.lockFile, () =>
      advanceSource(
        ctx.repo,
        record.sourceBranch,
        tip,
        replayed.commit,
        replayed.files,
        `switchyard: apply ${request.taskId}`,
        { branch: record.branch, commit: replayed.taskCommit },
      ),
    ),
  );
}

/** Runs the source DoD on the moved source: the apply is verified, or rolled back. */
async function checkOnSource(run: JournaledApply, replayed: Replayed): Promise<ApplyResult> {
  const { ctx, request } = run;
  await step(run, 'dod');
  await pausePoint('dod');
  const check = aborted(run)
    ? { ok: false, detail: '' }
    : await timed(ctx.onTiming, 'check', () => runCheck(request.check, ctx.repo.workspace));
  // Aborted (a second SIGINT) while it moved the source or ran its check: undone through the
  // journal like a failed check, and the task stays approved for the next run.
  if (aborted(run)) return rollBackAborted(run, replayed);
  if (check.ok) return finishVerified(run, replayed);
  return rollBackFailed(run, replayed, check.detail);
}

async function finishVerified(run: JournaledApply, replayed: Replayed): Promise<ApplyResult> {
  const { ctx, record, request, tip } = run;
  await step(run, 'verified');
  await pausePoint('verified');
  await timed(ctx.onTiming, 'finish', () => finishApplied(ctx, run.journal));
  return {
    status: 'applied',
    taskId: request.taskId,
    baseCommit: record.baseCommit,
    sourceTip: tip,
    sourceCommit: replayed.commit,
    files: replayed.files.map((f) => toWorkspacePath(ctx.repo, f)),
  };
}

async function rollBackFailed(
  run: JournaledApply,
  replayed: Replayed,
  detail: string,
): Promise<ApplyResult> {
  const { ctx, record, request, tip } = run;
  await step(run, 'rollback', { reason: detail });
  await pausePoint('rollback');
  const kept = await rollbackSource(ctx, run.journal, true);
  await step(run, 'rolled-back');
  await pausePoint('rolled-back');
  await removeJournal(ctx, request.taskId);
  return {
    status: 'dod-failed',
    taskId: request.taskId,
    baseCommit: record.baseCommit,
    sourceTip: tip,
    sourceCommit: replayed.commit,
    rolledBack: true,
    detail,
    ...(kept.length > 0 ? { kept: kept.map((f) => toWorkspacePath(ctx.repo, f)) } : {}),
  };
}

async function rollBackAborted(run: JournaledApply, replayed: Replayed): Promise<ApplyResult> {
  const { ctx, request } = run;
  await step(run, 'rollback', { reason: 'the apply was aborted' });
  await rollbackSource(ctx, run.journal, true);
  await step(run, 'rolled-back');
  await removeJournal(ctx, request.taskId);
  return {
    status: 'interrupted',
    taskId: request.taskId,
    message: `the apply was aborted; commit ${replayed.commit} was rolled back and the task applies on the next run`,
    rolledBack: replayed.commit,
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
