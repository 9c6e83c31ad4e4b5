import { join, relative } from 'node:path';
import { type Classification, formatProblem, planFileName } from '@switchyard/core';
import {
  evaluateReview,
  followUpDoneProblem,
  parsePlan,
  type ReviewOutcome,
} from '@switchyard/tasks';
import { reviewFileOf } from '../../lifecycle/index.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** The review file (the red-team review's own in its stage) and the next plan of the current loop. */
export function reviewFiles(rt: TaskRuntime): { reviewFile: string; nextPlanFile: string } {
  const loop = rt.state.planLoop;
  const name = reviewFileOf(rt.state.phase, loop) ?? reviewFileOf('review', loop);
  return {
    reviewFile: join(rt.task.dir, name),
    nextPlanFile: join(rt.task.dir, planFileName(rt.state.planLoop + 1)),
  };
}

const judged = new WeakMap<TaskRuntime, { planLoop: number; outcome: ReviewOutcome }>();

/**
 * The review outcome judged when the attempt ended (once per review attempt), else the files
 * judged now (a restart that judged the attempt from its evidence).
 */
export function takeJudgedReview(ctx: DispatchContext, rt: TaskRuntime): ReviewOutcome {
  const cached = judged.get(rt);
  judged.delete(rt);
  if (cached && cached.planLoop === rt.state.planLoop) return cached.outcome;
  return judgeReviewFiles(ctx, rt);
}

/** Judges the files the reviewer left (review contract + next plan against the task contract). */
export function judgeReviewFiles(ctx: DispatchContext, rt: TaskRuntime): ReviewOutcome {
  return evaluateReview({
    ...reviewFiles(rt),
    validatePlan: (file, source) => {
      const rel = relative(ctx.workspace, file);
      const plan = parsePlan(source, { file: rel, workspace: ctx.workspace, followUp: true });
      const problems = plan.problems.filter((p) => p.severity !== 'warning');
      // rt.task.definitionOfDone is PLAN.md's (see loadTask): the one a person wrote.
      const done = followUpDoneProblem(rt.task.definitionOfDone, plan.definitionOfDone, rel);
      if (done) problems.push(done);
      return problems.map(formatProblem);
    },
  });
}

/**
 * A review attempt whose process succeeded still fails when its files break the review
 * contract: the verdict becomes `review-control-failure` with the problems as evidence, so the
 * work log, the events and the locator all say so.
 */
export function judgeReviewAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  verdict: Classification,
): Classification {
  if (verdict.class !== 'success') return verdict;
  const outcome = judgeReviewFiles(ctx, rt);
  // Judged once: the stage acts on this outcome (`takeJudgedReview`), not on a second read.
  judged.set(rt, { planLoop: rt.state.planLoop, outcome });
  if (outcome.kind !== 'review-control-failure') return verdict;
  return {
    class: 'review-control-failure',
    confidence: 'certain',
    evidence: outcome.evidence,
    classifier: 'dispatcher',
  };
}
