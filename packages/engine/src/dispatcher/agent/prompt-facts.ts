import { join } from 'node:path';
import type { CatalogTarget } from '@switchyard/catalog';
import { type AttemptRole, planFileName } from '@switchyard/core';
import type { FailoverFacts, PromptContext } from '../../prompts/build-prompt.js';
import { planCopyOf } from '../corrections/plan-copy.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { attemptDirOf } from './attempt-spec.js';

/** Absolute path of the task's plan for its current loop, in the task folder. */
export function currentPlan(rt: TaskRuntime): string {
  return join(rt.task.dir, planFileName(rt.state.planLoop));
}

/** The plan an attempt reads and ticks: its own copy, written from the dispatcher's record
 * (see ./plan-copy.ts); the task folder's file for a task without a record. */
export function attemptPlan(ctx: DispatchContext, rt: TaskRuntime, attemptId: string): string {
  return rt.state.plan
    ? planCopyOf(attemptDirOf(ctx, attemptId), rt.state.planLoop)
    : currentPlan(rt);
}

/** The facts every prompt of an attempt carries. */
export function promptContext(
  ctx: DispatchContext,
  rt: TaskRuntime,
  role: AttemptRole,
  attemptId: string,
): PromptContext {
  return {
    role,
    attemptId,
    task: rt.id,
    planLoop: rt.state.planLoop,
    maxPlanLoops: maxPlanLoopsOf(rt),
    workspace: workdirOf(ctx, rt),
    taskDir: rt.task.dir,
    plan: attemptPlan(ctx, rt, attemptId),
    writeSet: rt.task.writeSetAny
      ? ['any file of your worktree except .git (write_set: any)']
      : rt.task.writeSet.map((entry) => entry.path),
  };
}

/** Where the attempt the task failed over from left its evidence. */
export function failoverFacts(rt: TaskRuntime): FailoverFacts | undefined {
  const prior = rt.state.attempts.find((a) => a.id === rt.state.failoverFrom);
  if (!prior) return undefined;
  return {
    priorTarget: prior.target,
    failureClass: prior.result ?? 'unknown',
    priorLocator: join(prior.attemptDir, 'locator.json'),
    priorNormalizedOutput: join(prior.attemptDir, 'normalized-output.log'),
    priorStream: join(prior.attemptDir, 'stream.log'),
  };
}

/**
 * A native session the new target may resume after a failover: only when both targets
 * declare the same native-session mechanism and the prior attempt (which ran in this
 * workspace, as its record proves) reported a session id.
 */
export function failoverSession(
  ctx: DispatchContext,
  rt: TaskRuntime,
  target: CatalogTarget,
): string | undefined {
  const prior = rt.state.attempts.find((a) => a.id === rt.state.failoverFrom);
  if (!prior?.sessionId || !target.runtime.resume_command) return undefined;
  const before = ctx.catalog.targets[prior.target];
  const mechanism = target.runtime.native_session_monitor;
  if (!mechanism || before?.runtime.native_session_monitor !== mechanism) return undefined;
  return prior.sessionId;
}
