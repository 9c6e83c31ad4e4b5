import { writePlanCopy } from '../corrections/plan-copy.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { type AttemptInputs, attemptDirOf } from './attempt-spec.js';
import type { AttemptResult } from './await-attempt.js';
import { runAttempt } from './run-attempt.js';

/** A stage's attempt: everything but the directory and plan, which follow from the task. */
export type StageAttemptInputs = Omit<AttemptInputs, 'attemptDir' | 'plan' | 'workdir'>;

/** Runs a stage's attempt in `<stateDir>/attempts/<id>` on a copy of the task's current plan. */
export function runStageAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: StageAttemptInputs,
): Promise<AttemptResult> {
  const attemptDir = attemptDirOf(ctx, inputs.attemptId);
  return runAttempt(ctx, rt, {
    ...inputs,
    attemptDir,
    // The agent's own copy of the plan (see ./plan-copy.ts).
    plan: writePlanCopy(ctx, rt, attemptDir),
    workdir: workdirOf(ctx, rt),
  });
}
