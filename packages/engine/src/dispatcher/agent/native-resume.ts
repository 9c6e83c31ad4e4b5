import type { CatalogTarget } from '@switchyard/catalog';
import type { ResumePlan, RunnerPlugin } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { failoverSession } from './prompt-facts.js';

/** What the resumed attempt would be started with. */
export interface ResumeAttempt {
  targetId: string;
  target: CatalogTarget;
  sessionId: string;
  attemptDir: string;
  prompt: string;
  /** Where the task's agents work (its worktree); default the workspace. */
  workdir?: string;
}

/**
 * Asks the runner plugin to plan a native resume (`planResume`): the runner checks that the
 * session exists and belongs to this workspace and fills the target's `resume_command`.
 * Without a runner that plans resumes, native resume is not possible.
 */
export async function planNativeResume(
  ctx: DispatchContext,
  attempt: ResumeAttempt,
): Promise<ResumePlan> {
  const runtime = attempt.target.runtime;
  let runner: RunnerPlugin | undefined;
  try {
    runner = ctx.options.plugins.runnerFor(runtime.output_format, { nativeSession: true });
  } catch {
    // no native-session runner loaded
  }
  if (!runner?.planResume) {
    return { reason: 'no runner plugin loaded plans native resumes' };
  }
  return runner.planResume({
    resumeCommand: runtime.resume_command,
    sessionId: attempt.sessionId,
    workspace: attempt.workdir ?? ctx.workspace,
    ...(runtime.session_path ? { sessionPath: runtime.session_path } : {}),
    values: {
      agent: attempt.target.agent,
      model: attempt.target.model,
      target_id: attempt.targetId,
      workspace: attempt.workdir ?? ctx.workspace,
      attempt_dir: attempt.attemptDir,
      prompt: attempt.prompt,
    },
  });
}

/**
 * The resume argv after a failover, when the prior attempt's native session may be resumed
 * on the new target (`failoverSession`) and the runner plugin agrees; else a fresh start.
 */
export async function failoverResume(
  ctx: DispatchContext,
  rt: TaskRuntime,
  attempt: Omit<ResumeAttempt, 'sessionId'>,
): Promise<string[] | undefined> {
  const sessionId = failoverSession(ctx, rt, attempt.target);
  if (sessionId === undefined) return undefined;
  const plan = await planNativeResume(ctx, { ...attempt, sessionId, workdir: workdirOf(ctx, rt) });
  return 'argv' in plan ? plan.argv : undefined;
}
