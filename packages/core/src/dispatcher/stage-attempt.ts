import { type AttemptInputs, attemptDirOf } from './attempt-spec.js';
import type { AttemptResult } from './await-attempt.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { currentPlan } from './prompt-facts.js';
import { runAttempt } from './run-attempt.js';
import { workdirOf } from './workdir.js';

/** A stage's attempt: everything but the directory and plan, which follow from the task. */
export type StageAttemptInputs = Omit<AttemptInputs, 'attemptDir' | 'plan' | 'workdir'>;

/** Runs a stage's attempt in `<stateDir>/attempts/<id>` on the task's current plan. */
export function runStageAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: StageAttemptInputs,
): Promise<AttemptResult> {
  return runAttempt(ctx, rt, {
    ...inputs,
    attemptDir: attemptDirOf(ctx, inputs.attemptId),
    plan: currentPlan(rt),
    workdir: workdirOf(ctx, rt),
  });
}
