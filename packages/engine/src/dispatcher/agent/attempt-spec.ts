import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CatalogTarget } from '@switchyard/catalog';
import type { AttemptRole, RunnerLocatorFields, TemplateValues } from '@switchyard/core';
import { attemptEnvironment, fillTemplate } from '@switchyard/runner-kit';
import { expandEnvironmentValue } from '@switchyard/utils';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';

/**
 * A fresh attempt id, unique across dispatcher restarts. It is also the process marker and
 * the attempt directory name, so it holds only `[A-Za-z0-9._-]`.
 */
export function newAttemptId(task: string, role: AttemptRole, planLoop: number): string {
  const stamp = Date.now().toString(36);
  const random = randomBytes(3).toString('hex');
  return `${task.replace(/[^A-Za-z0-9._-]/g, '.')}.${role}.${planLoop}.${stamp}${random}`;
}

/** `<stateDir>/attempts/<attempt id>`. */
export function attemptDirOf(ctx: DispatchContext, attemptId: string): string {
  return join(ctx.stateDir, 'attempts', attemptId);
}

/** What one attempt is started with. */
export interface AttemptInputs {
  attemptId: string;
  attemptDir: string;
  role: AttemptRole;
  targetId: string;
  target: CatalogTarget;
  prompt: string;
  /** Absolute plan of this loop. */
  plan: string;
  /** The resume argv the runner plugin planned (self-check retries, same-mechanism
   * failover); the target's `command` otherwise. */
  resumeArgv?: readonly string[] | undefined;
  /** Where the agent works when it is not the workspace (its task's worktree). */
  workdir?: string;
  /** Role-specific SWITCHYARD_* additions (review file, next plan). */
  extraEnv?: Readonly<Record<string, string>>;
}

/**
 * The argv of an attempt: the resume argv the runner plugin planned, else `runtime.command`
 * filled in; `{prompt}` stays one argv element.
 */
export function attemptArgv(ctx: DispatchContext, inputs: AttemptInputs): string[] {
  const runtime = inputs.target.runtime;
  const values: TemplateValues = {
    agent: inputs.target.agent,
    model: inputs.target.model,
    target_id: inputs.targetId,
    workspace: inputs.workdir ?? ctx.workspace,
    attempt_dir: inputs.attemptDir,
    prompt: inputs.prompt,
  };
  if (inputs.resumeArgv !== undefined) return [...inputs.resumeArgv];
  return fillTemplate(runtime.command, values);
}

/**
 * The environment added for the child: the target's `environment` (with `${NAME}`
 * references expanded from the dispatcher's environment) and the documented SWITCHYARD_*
 * contract variables.
 */
export function attemptEnv(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inputs.target.runtime.environment ?? {})) {
    env[name] = expandEnvironmentValue(value, process.env).value;
  }
  Object.assign(
    env,
    attemptEnvironment({
      attemptId: inputs.attemptId,
      role: inputs.role,
      workspace: workdirOf(ctx, rt),
      attemptDir: inputs.attemptDir,
      taskId: rt.id,
      targetId: inputs.targetId,
    }),
    {
      SWITCHYARD_TASK_DIR: rt.task.dir,
      SWITCHYARD_PLAN: inputs.plan,
      SWITCHYARD_PLAN_LOOP: String(rt.state.planLoop),
    },
    inputs.extraEnv ?? {},
  );
  return env;
}

/** The static locator fields the runner records for the attempt. */
export function locatorFields(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
  argv: readonly string[],
): RunnerLocatorFields {
  const runtime = inputs.target.runtime;
  return {
    taskId: rt.id,
    role: inputs.role,
    planLoop: rt.state.planLoop,
    targetId: inputs.targetId,
    agent: inputs.target.agent,
    model: inputs.target.model,
    ...(ctx.options.agentVersions?.[inputs.targetId]
      ? { agentVersion: ctx.options.agentVersions[inputs.targetId] }
      : {}),
    executionClass: inputs.target.execution_class,
    runtime: {
      command: [...runtime.command],
      argv: [...argv],
      outputFormat: runtime.output_format,
      ...(runtime.resume_command ? { resumeCommand: [...runtime.resume_command] } : {}),
      environment: { ...(runtime.environment ?? {}) },
      ...(runtime.session_path ? { sessionPath: runtime.session_path } : {}),
      nativeSessionMonitor: runtime.native_session_monitor !== undefined,
    },
    catalog: { source: ctx.catalogFacts.source, revision: ctx.catalogFacts.revision },
    evidence: [],
  };
}
