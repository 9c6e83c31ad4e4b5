import type { AttemptRecord, Classification } from '@switchyard/core';
import type { AttemptRoleName } from '../../lifecycle/index.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { type AgentStage, settleAgentAttempt } from './agent-stage.js';
import { FIXUP_STAGE } from './stage-fixup.js';
import { RED_TEAM_STAGE } from './stage-redteam.js';
import { REVIEW_STAGE } from './stage-review.js';
import { SELFCHECK_STAGE } from './stage-selfcheck.js';
import { WORKER_STAGE } from './stage-worker.js';

/** The stage-specific parts of each agent stage of the lifecycle table (a row of kind `agent`
 * needs one here). */
export const AGENT_STAGES: Readonly<Record<AttemptRoleName, AgentStage>> = {
  worker: WORKER_STAGE,
  selfcheck: SELFCHECK_STAGE,
  review: REVIEW_STAGE,
  redteam: RED_TEAM_STAGE,
  fixup: FIXUP_STAGE,
};

/** Applies an attempt's verdict exactly as the stage that started it would have. */
export function applyVerdict(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
): Promise<void> {
  return settleAgentAttempt(ctx, rt, AGENT_STAGES[record.role], record, verdict);
}
