import { SwitchyardError } from '@switchyard/core';
import { FINAL_PHASE, type LifecycleStage } from '../lifecycle/index.js';
import { runFixupStage } from './agent/stage-fixup.js';
import { runRedTeamStage } from './agent/stage-redteam.js';
import { runReviewStage } from './agent/stage-review.js';
import { runSelfcheckStage } from './agent/stage-selfcheck.js';
import { runWorkerStage } from './agent/stage-worker.js';
import { runGateStage } from './checks/stage-gate.js';
import { runProjectGatesStage } from './checks/stage-project-gates.js';
import { runPromiseStage } from './checks/stage-promise.js';
import { runWriteSetStage } from './checks/stage-writeset.js';
import { persist } from './context.js';
import { stopOverBudget } from './corrections/cost-guard.js';
import { blockTask } from './landing/apply-failure.js';
import { runApplyStage } from './landing/stage-apply.js';
import { runArchiveStage } from './landing/stage-archive.js';
import { loseTask } from './shared/shared-backlog.js';
import { refuseStart } from './start-veto.js';
import { blockStoppedTask } from './stop-task.js';
import type { DispatchContext, TaskRuntime } from './types.js';
import { blockedForGoneFolder } from './worktree/folder-gone.js';
import { ensureTaskWorktree, keepBlockedWorktree } from './worktree/task-worktree.js';

/** The handler of each lifecycle stage (a new row of the table needs one here). */
export const STAGE_HANDLERS: Readonly<
  Record<LifecycleStage, (ctx: DispatchContext, rt: TaskRuntime) => Promise<void>>
> = {
  worker: runWorkerStage,
  selfcheck: runSelfcheckStage,
  writeset: runWriteSetStage,
  gate: runGateStage,
  'project-gates': runProjectGatesStage,
  review: runReviewStage,
  redteam: runRedTeamStage,
  fixup: runFixupStage,
  promise: runPromiseStage,
  apply: runApplyStage,
  archive: runArchiveStage,
};

/**
 * Runs the next stage of a task (one attempt, one gate, or the archive) while the task
 * holds a parallel slot. An error a stage did not expect blocks only this task, with the
 * error as evidence; one that is not a switchyard error is also a control-plane failure.
 */
export async function runStep(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  rt.busy = true;
  const phase = rt.state.phase;
  try {
    // A start guard of the bus (the cost budget…) may refuse the next stage: the task blocks
    // with its reason. A passed budget also stops the task right after the attempt that passed it.
    if (phase !== FINAL_PHASE && refuseStart(ctx, rt)) return await persist(ctx, rt);
    // Its folder moved or deleted by someone else: nothing more runs for it (the archive stage
    // checks a folder it moved itself against its record).
    if (phase !== FINAL_PHASE && phase !== 'archive' && blockedForGoneFolder(ctx, rt))
      return await persist(ctx, rt);
    if (phase !== FINAL_PHASE) {
      // A new worktree's set-up that failed blocks the task before anything is paid for.
      if (await ensureTaskWorktree(ctx, rt)) await STAGE_HANDLERS[phase](ctx, rt);
    }
    if (stopOverBudget(ctx, rt)) await persist(ctx, rt);
    // Stopped by a human while this step ran: its attempt was cancelled; the task blocks.
    if (blockStoppedTask(ctx, rt)) await persist(ctx, rt);
  } catch (error) {
    // Shared backlog: the task went to another dispatcher; nothing more is written for it here.
    if (ctx.shared && SwitchyardError.is(error) && error.code === 'SY_LEASE_LOST') {
      if (ctx.shared.owned.has(rt.id)) loseTask(ctx, rt.id);
      rt.busy = false;
      return;
    }
    const known = SwitchyardError.is(error) && error.code !== 'SY_INTERNAL';
    const message = error instanceof Error ? error.message : String(error);
    if (!known) {
      ctx.controlFailures.push(`${rt.id} (${phase}): ${message}`);
      ctx.bus.emit({
        type: 'control.failure',
        code: 'SY_INTERNAL',
        message: `${rt.id} (${phase}): ${message}`,
      });
    }
    blockTask(ctx, rt, {
      stage: phase,
      reason: known
        ? `${error.code}: ${message}${error.hint ? ` (${error.hint})` : ''}`
        : `internal error: ${message}`,
      evidence: known
        ? error.problems.map((p) => p.message)
        : (error instanceof Error ? (error.stack ?? '') : '').split('\n').slice(0, 8),
    });
    try {
      await persist(ctx, rt);
    } catch (persistError) {
      ctx.controlFailures.push(`${rt.id}: cannot persist state: ${String(persistError)}`);
    }
  }
  try {
    await keepBlockedWorktree(ctx, rt);
  } catch (error) {
    ctx.controlFailures.push(`${rt.id}: cannot mark its worktree blocked: ${String(error)}`);
  } finally {
    rt.busy = false;
  }
}
