import type { AttemptRecord, Classification } from '@switchyard/core';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { STAGE_FAILURE_BUDGET } from '../../selection/on-failure.js';
import { advance } from '../advance.js';
import { sourceCorrection } from '../checks/source-watch.js';
import { runLocalStage } from '../checks/stage-local.js';
import { blockUnisolatedAnyWriteSet } from '../checks/write-set-scope.js';
import { type DispatchContext, persist, type TaskRuntime } from '../context.js';
import { applyFailure, blockTask } from '../landing/apply-failure.js';
import { holdForSharedTarget } from '../shared/shared-targets.js';
import { openSharedRound } from '../shared/shared-writes.js';
import { attemptDirOf, newAttemptId } from './attempt-spec.js';
import { ensureDecision } from './ensure-decision.js';
import { failoverResume } from './native-resume.js';
import { failoverFacts, promptContext } from './prompt-facts.js';
import { blockInfeasibleRedTeam } from './red-team.js';
import { runStageAttempt } from './stage-attempt.js';

const WORKER_STAGE = { decisionKey: 'worker', budget: 'worker', failover: true } as const;

/** Runs one worker attempt of a task and moves the task on. */
export async function runWorkerStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  if (rt.task.runner === 'local') return runLocalStage(ctx, rt);
  if (blockUnisolatedAnyWriteSet(ctx, rt)) return persist(ctx, rt);
  const decision = ensureDecision(ctx, rt, 'worker');
  if (!decision) return persist(ctx, rt);
  if (blockInfeasibleRedTeam(ctx, rt, decision.candidates)) return persist(ctx, rt);
  if (await holdForSharedTarget(ctx, rt, WORKER_STAGE)) return persist(ctx, rt);
  const target = ctx.catalog.targets[decision.target]!;
  const attemptId = newAttemptId(rt.id, 'worker', rt.state.planLoop);
  const prompt = buildPrompt({
    templates: ctx.options.prompts,
    context: promptContext(ctx, rt, 'worker', attemptId),
    failover: failoverFacts(rt),
    correction: rt.state.correction,
  });
  // The shared workspace has no diff: what the worker changes is measured against snapshots.
  await openSharedRound(ctx, rt, attemptId);
  const { record, verdict } = await runStageAttempt(ctx, rt, {
    attemptId,
    role: 'worker',
    targetId: decision.target,
    target,
    prompt,
    resumeArgv: await failoverResume(ctx, rt, {
      targetId: decision.target,
      target,
      attemptDir: attemptDirOf(ctx, attemptId),
      prompt,
    }),
  });
  afterWorker(ctx, rt, record, verdict);
  await persist(ctx, rt);
}

/** Worker verdict -> next phase: self-check (when the completing target requires it), the
 * definition-of-done gate (when the plan has one), else review. */
export function afterWorker(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
): void {
  if (verdict.class !== 'success') {
    applyFailure(ctx, rt, 'worker', 'worker', record, verdict);
    return;
  }
  if (sentBackForSource(ctx, rt, record, 'worker')) return;
  const target = ctx.catalog.targets[record.target];
  advance(rt, 'passed', { facts: { selfcheckRequired: target?.selfcheck_required === true } });
}

/**
 * A successful worker or self-check attempt that changed the source checkout where it may
 * not (put back by then) goes to the worker again with a correction naming the files, charged
 * to the stage's budget. True when it did.
 */
export function sentBackForSource(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  stage: 'worker' | 'selfcheck',
): boolean {
  const correction = sourceCorrection(ctx, rt, record);
  if (!correction) return false;
  if (rt.state.failures[stage] + 1 >= STAGE_FAILURE_BUDGET) {
    rt.state.failures[stage] += 1;
    blockTask(ctx, rt, {
      stage,
      reason: `${rt.state.failures[stage]} consecutive attempts changed the source checkout: ${correction.summary}`,
      evidence: correction.evidence,
    });
    return true;
  }
  advance(rt, 'source-changed', { correction });
  return true;
}
