import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { AttemptRecord, Classification, Correction } from '@switchyard/core';
import { type ParsedReview, reviewDisposition } from '@switchyard/tasks';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { advance } from '../advance.js';
import { openChecklistNotes } from '../checks/completion-promise.js';
import { advancePlanLoop } from '../corrections/plan-loop.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import { applyFailure } from '../landing/apply-failure.js';
import { sealIncomplete } from '../landing/seal-incomplete.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import {
  type AgentStage,
  type AttemptPlace,
  type PreparedAttempt,
  runAgentStage,
} from './agent-stage.js';
import { attemptDirOf } from './attempt-spec.js';
import { ensureDecision } from './ensure-decision.js';
import { minorNotesFact } from './fixup-notes.js';
import { failoverResume } from './native-resume.js';
import { failoverFacts, promptContext } from './prompt-facts.js';
import { reviewFiles, takeJudgedReview } from './review-judge.js';
import { reviewerPlanFile, setAsideNextPlan, writeCorrectionPacket } from './review-packet.js';

export { DEFAULT_MAX_PLAN_LOOPS } from '../corrections/plan-loop-cap.js';

/** The roles whose attempt writes a review. */
type ReviewRole = 'review' | 'redteam';

/** A review stage (the official review, the red-team review): its decision and the brief
 * added to the review prompt. */
export function reviewStage(
  role: ReviewRole,
  decide: AgentStage['decide'],
  brief?: string,
): AgentStage {
  return {
    role,
    decide,
    holdsSharedTarget: true,
    changesFiles: false,
    prepare: (ctx, rt, place) => prepareReview(ctx, rt, place, role, brief),
    onSuccess: (ctx, rt, record) => actOnReview(ctx, rt, record, role),
  };
}

export const REVIEW_STAGE = reviewStage('review', (ctx, rt) => ensureDecision(ctx, rt, 'review'));

/** Runs one official review attempt and acts on its verdict. */
export function runReviewStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return runAgentStage(ctx, rt, REVIEW_STAGE);
}

/** The review prompt (the review contract, the stage's brief, checklist items left open) and
 * the context a failed-over review resumes. */
async function prepareReview(
  ctx: DispatchContext,
  rt: TaskRuntime,
  { attemptId, decision, target }: AttemptPlace,
  role: ReviewRole,
  brief: string | undefined,
): Promise<PreparedAttempt> {
  const { reviewFile, nextPlanFile } = reviewFiles(rt);
  // Outputs of an earlier failed review attempt of this loop must not count for this one.
  rmSync(reviewFile, { force: true });
  rmSync(nextPlanFile, { force: true });
  rmSync(reviewerPlanFile(nextPlanFile), { force: true });
  const reviewPrompt = buildPrompt({
    templates: ctx.options.prompts,
    context: promptContext(ctx, rt, role, attemptId),
    review: {
      reviewFile,
      nextPlan: nextPlanFile,
      loopsLeft: Math.max(0, maxPlanLoopsOf(rt) - rt.state.planLoop),
    },
    failover: failoverFacts(rt),
    correction: reviewCorrection(rt, role),
  });
  const prompt = `${[reviewPrompt.trimEnd(), brief, openItemsBrief(ctx, rt)].filter(Boolean).join('\n\n')}\n`;
  const resumeArgv = await failoverResume(ctx, rt, {
    targetId: decision.target,
    target,
    attemptDir: attemptDirOf(ctx, attemptId),
    prompt,
  });
  return {
    prompt,
    resumeArgv,
    extraEnv: { SWITCHYARD_REVIEW_FILE: reviewFile, SWITCHYARD_NEXT_PLAN: nextPlanFile },
  };
}

/**
 * A successful review attempt's review -> the completion promise (APPROVED), plan loop N+1
 * (CHANGES_REQUESTED with a valid `PLAN-<N+1>.md`, within `max_plan_loops`), or a
 * `review-control-failure` that keeps the target and retries within the review budget.
 */
async function actOnReview(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  role: ReviewRole,
): Promise<void> {
  // Judged when the attempt ended (judgeReviewAttempt); judged here only after a restart.
  const outcome = takeJudgedReview(ctx, rt);
  if (outcome.kind === 'review-control-failure') {
    record.result = 'review-control-failure';
    record.evidence = outcome.evidence;
    const failure: Classification = {
      class: 'review-control-failure',
      confidence: 'certain',
      evidence: outcome.evidence,
    };
    applyFailure(ctx, rt, role, role, record, failure);
    return;
  }
  emitVerdict(ctx, rt, outcome.review);
  const state = rt.state;
  if (outcome.kind === 'approved') {
    advance(rt, 'approved', { facts: minorNotesFact(ctx, rt) });
    return;
  }
  if (outcome.kind === 'approved-with-notes') {
    setAsideNextPlan(rt);
    advance(rt, 'approved-with-notes', { facts: minorNotesFact(ctx, rt) });
    return;
  }
  writeCorrectionPacket(ctx, rt, outcome.review);
  if (state.planLoop + 1 > maxPlanLoopsOf(rt)) {
    sealIncomplete(ctx, rt, outcome.review);
    return;
  }
  await advancePlanLoop(ctx, rt);
}

/**
 * When the previous review attempt of this loop left files that broke the review contract,
 * the next one is told exactly what was wrong (not the same prompt again).
 */
export function reviewCorrection(
  rt: TaskRuntime,
  role: ReviewRole = 'review',
): Correction | undefined {
  const previous = rt.state.attempts.findLast(
    (a) => a.role === role && a.planLoop === rt.state.planLoop && a.status === 'finished',
  );
  if (previous?.result !== 'review-control-failure') return undefined;
  return {
    source: 'review',
    summary: `the previous review attempt's ${basename(reviewFiles(rt).reviewFile)} was rejected; write it again and fix every problem below.`,
    evidence: previous.evidence ?? [],
  };
}

function emitVerdict(ctx: DispatchContext, rt: TaskRuntime, review: ParsedReview): void {
  const count = (s: string) => review.findings.filter((f) => f.severity === s).length;
  ctx.bus.emit({
    type: 'review.verdict',
    task: rt.id,
    planLoop: rt.state.planLoop,
    verdict: review.verdict!,
    findings: { critical: count('CRITICAL'), moderate: count('MODERATE'), minor: count('MINOR') },
    disposition: reviewDisposition(review),
  });
}

/**
 * Checklist items the worker left open where its target requires no self-check: no block,
 * but the reviewer is told, so an item that is not done is judged as such.
 */
function openItemsBrief(ctx: DispatchContext, rt: TaskRuntime): string | undefined {
  const open = openChecklistNotes(ctx, rt);
  if (open.length === 0) return undefined;
  return [
    '## Checklist items left open',
    '',
    "The worker left these items of the plan's `## Implementation Checklist` unticked (its target",
    'requires no self-check, so they do not block the task by themselves). Check each in the code:',
    'one that is not done is a finding like any other.',
    '',
    ...open.map((item) => `- ${item}`),
  ].join('\n');
}
