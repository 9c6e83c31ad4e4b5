import type { DispatchContext, TaskRuntime } from '../types.js';
import { runAgentStage } from './agent-stage.js';
import { ensureRedTeamDecision, RED_TEAM_BRIEF } from './red-team.js';
import { reviewStage } from './stage-review.js';

/**
 * `review: red-team`: after the official review approved, one attempt of the adversarial
 * review on a target of another agent family; its verdict acts like a review's.
 */
export const RED_TEAM_STAGE = reviewStage('redteam', ensureRedTeamDecision, RED_TEAM_BRIEF);

/** Runs one red-team review attempt and acts on its verdict. */
export function runRedTeamStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return runAgentStage(ctx, rt, RED_TEAM_STAGE);
}
