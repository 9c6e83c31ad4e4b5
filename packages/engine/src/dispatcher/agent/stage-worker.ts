import type { AttemptRecord } from '@switchyard/core';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { STAGE_FAILURE_BUDGET } from '../../selection/on-failure.js';
import { advance } from '../advance.js';
import { sourceCorrection } from '../checks/source-watch.js';
import { runLocalStage } from '../checks/stage-local.js';
import { blockUnisolatedAnyWriteSet } from '../checks/write-set-scope.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { type AgentStage, runAgentStage } from './agent-stage.js';
import { attemptDirOf } from './attempt-spec.js';
import { ensureDecision } from './ensure-decision.js';
import { failoverResume } from './native-resume.js';
import { failoverFacts, promptContext } from './prompt-facts.js';
import { blockInfeasibleRedTeam } from './red-team.js';

/** The worker: the plan's work on the worker decision's target; after a failover it resumes
 * the failed attempt's context where the new target can. */
export const WORKER_STAGE: AgentStage = {
  role: 'worker',
  holdsSharedTarget: true,
  // The shared workspace has no diff: what the worker changes is measured against snapshots.
  changesFiles: true,
  decide(ctx, rt) {
    if (blockUnisolatedAnyWriteSet(ctx, rt)) return undefined;
    const decision = ensureDecision(ctx, rt, 'worker');
    if (!decision || blockInfeasibleRedTeam(ctx, rt, decision.candidates)) return undefined;
    return decision;
  },
  async prepare(ctx, rt, { attemptId, decision, target }) {
    const prompt = buildPrompt({
      templates: ctx.options.prompts,
      context: promptContext(ctx, rt, 'worker', attemptId),
      failover: failoverFacts(rt),
      correction: rt.state.correction,
    });
    const attemptDir = attemptDirOf(ctx, attemptId);
    const resumeArgv = await failoverResume(ctx, rt, {
      targetId: decision.target,
      target,
      attemptDir,
      prompt,
    });
    return { prompt, resumeArgv };
  },
  // -> self-check (when the completing target requires it), the checks, else the review.
  onSuccess(ctx, rt, record) {
    if (sentBackForSource(ctx, rt, record, 'worker')) return;
    const target = ctx.catalog.targets[record.target];
    advance(rt, 'passed', { facts: { selfcheckRequired: target?.selfcheck_required === true } });
  },
};

/** Runs one worker attempt of a task (or its `runner: local` command) and moves the task on. */
export async function runWorkerStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  if (rt.task.runner === 'local') return runLocalStage(ctx, rt);
  return runAgentStage(ctx, rt, WORKER_STAGE);
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
      consecutiveFailures: rt.state.failures[stage],
    });
    return true;
  }
  advance(rt, 'source-changed', { correction });
  return true;
}
