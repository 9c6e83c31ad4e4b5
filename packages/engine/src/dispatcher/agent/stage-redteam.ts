import type { DispatchContext, TaskRuntime } from '../context.js';
import { ensureRedTeamDecision, RED_TEAM_BRIEF } from './red-team.js';
import { runReviewAs } from './stage-review.js';

/**
 * `review: red-team`: after the official review approved, one attempt of the adversarial
 * review on a target of another agent family; its verdict acts like a review's.
 */
export async function runRedTeamStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return runReviewAs(ctx, rt, {
    role: 'redteam',
    decide: ensureRedTeamDecision,
    brief: RED_TEAM_BRIEF,
  });
}
