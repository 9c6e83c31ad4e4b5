import {
  type ApplyJournal,
  type RecoveredApply,
  SwitchyardError,
  type TaskId,
} from '@switchyard/core';
import { withApplyLock } from './apply-lock.js';
import { whileSourceMoves } from './apply-queue.js';
import { git } from './git.js';
import type { IsolationContext } from './isolation-context.js';
import { readJournal, readRecord, recordStep, removeJournal, writeRecord } from './records.js';
import { resolveCommit } from './repository.js';
import { moveSourceBack, removeStrays } from './source-tree.js';

/**
 * Brings every apply a crash interrupted to a correct state, under the repository's apply
 * lock: one that had not touched the source is discarded; one that had been verified is
 * completed; any other (source moved but DoD not passed) is rolled back, so the source
 * branch and tree are exactly as before it. Call once at dispatcher start; a rolled-back
 * or discarded task is still approved and simply applies again.
 */
export async function recoverApplies(
  ctx: IsolationContext,
  options: { lockTimeoutMs?: number } = {},
): Promise<RecoveredApply[]> {
  const ids = await ctx.store.isolation.journalTasks();
  if (ids.length === 0) return [];
  return withApplyLock(ctx, options.lockTimeoutMs, undefined, async () => {
    const recovered: RecoveredApply[] = [];
    for (const id of ids) {
      const one = await recoverTask(ctx, id);
      if (one) recovered.push(one);
    }
    return recovered;
  });
}

/** Recovers one task's journal (the caller holds the apply lock). */
export async function recoverTask(
  ctx: IsolationContext,
  taskId: TaskId,
): Promise<RecoveredApply | undefined> {
  const journal = await readJournal(ctx, taskId);
  if (!journal) return undefined;
  const step = journal.step;
  switch (step) {
    case 'commit':
    case 'rebase':
      // Only the task branch and new objects exist so far: the source was never touched.
      await removeJournal(ctx, taskId);
      return { taskId, step, outcome: 'discarded' };
    case 'verified':
    case 'done':
      await finishApplied(ctx, journal);
      return {
        taskId,
        step,
        outcome: 'completed',
        ...(journal.sourceCommit ? { sourceCommit: journal.sourceCommit } : {}),
      };
    default: {
      const rolling =
        step === 'rollback' || step === 'rolled-back'
          ? journal
          : await recordStep(ctx, journal, 'rollback', {
              reason: `interrupted at step ${step}`,
            });
      await rollbackSource(ctx, rolling);
      await removeJournal(ctx, taskId);
      return {
        taskId,
        step,
        outcome: 'rolled-back',
        ...(journal.sourceCommit ? { sourceCommit: journal.sourceCommit } : {}),
      };
    }
  }
}

/** Marks the task's worktree applied (with the source commit) and closes its journal. */
export async function finishApplied(ctx: IsolationContext, journal: ApplyJournal): Promise<void> {
  const record = await readRecord(ctx, journal.taskId);
  if (record && journal.sourceCommit)
    await writeRecord(ctx, {
      ...record,
      state: 'applied',
      appliedCommit: journal.sourceCommit,
    });
  await removeJournal(ctx, journal.taskId);
}

/**
 * Undoes exactly the task's commit: the source branch back at the tip the apply started
 * from and the task's files back to their content there. Idempotent. A branch that never
 * moved (the apply stopped before) is left as it is; one that moved past the task's commit
 * (someone committed on top meanwhile) is not rewritten: that needs a person. For the apply
 * under way (`underWay`: its task blocks with the error) the journal goes first: kept, it
 * made every later run's recovery refuse to start, even after the commit was reverted.
 */
export async function rollbackSource(
  ctx: IsolationContext,
  journal: ApplyJournal,
  underWay = false,
): Promise<string[]> {
  const { sourceTip: tip, sourceCommit: commit, files, sourceBranch } = journal;
  if (!tip || !commit)
    throw new SwitchyardError(
      'SY_STATE_CORRUPT',
      `the apply journal of ${journal.taskId} has no source commit to roll back`,
      {
        hint: 'check the source branch by hand, then remove the journal under agent-task/.switchyard/isolation/apply/',
      },
    );
  const at = await resolveCommit(ctx.repo.root, `refs/heads/${sourceBranch}`);
  if (at !== tip && at !== commit) {
    const past = at
      ? (await git(ctx.repo.root, ['merge-base', '--is-ancestor', commit, at], { allow: [1] }))
          .exitCode === 0
      : false;
    if (!past) return []; // the branch never moved to the task's commit: nothing of it is on the source
    if (underWay) await removeJournal(ctx, journal.taskId);
    throw new SwitchyardError(
      'SY_GIT',
      `${sourceBranch} has commits on top of ${commit}, which failed its check`,
      {
        file: ctx.repo.root,
        hint: `revert it by hand: git revert ${commit}`,
      },
    );
  }
  return whileSourceMoves(ctx.layout.lockFile, async () => {
    const kept = await moveSourceBack(
      ctx.repo,
      sourceBranch,
      commit,
      tip,
      files,
      `switchyard: rollback ${journal.taskId}`,
    );
    await removeStrays(ctx.repo, commit, files);
    return kept;
  });
}
