import { join } from 'node:path';
import {
  type AttemptRecord,
  type Classification,
  type RunHandle,
  type RunnerPlugin,
  type RunnerSpec,
  type SandboxSpec,
  SwitchyardError,
} from '@switchyard/core';
import { type PromptDeliveryPlan, redactSecrets } from '@switchyard/runner-kit';
import { writeOwnedFileBelow } from '@switchyard/utils';
import { decisionKeyOf } from '../../lifecycle/index.js';
import { checkSource, snapshotSource } from '../checks/source-watch.js';
import { persist, persistWithin } from '../context.js';
import { notePlanFiles, takeReturnedPlan } from '../corrections/plan-copy.js';
import { type AttemptRowFields, attemptRowFields } from '../landing/work-log-row.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { attemptSandbox } from './attempt-sandbox.js';
import { type AttemptInputs, attemptArgv, attemptEnv, locatorFields } from './attempt-spec.js';
import { attemptTimeLimitMs } from './attempt-time-limit.js';
import { type AttemptResult, awaitAttempt, finish } from './await-attempt.js';
import { deliverPrompt } from './prompt-route.js';

/** Picks the runner for a target: a native-session runner when the target monitors one. */
export function runnerForTarget(
  ctx: DispatchContext,
  format: 'text' | 'jsonl',
  native: boolean,
): RunnerPlugin {
  if (native) {
    try {
      return ctx.options.plugins.runnerFor(format, { nativeSession: true });
    } catch {
      // no native-session runner loaded: run it as a plain attempt of its format
    }
  }
  return ctx.options.plugins.runnerFor(format);
}

/**
 * Runs one attempt. The attempt record is persisted with status `starting` BEFORE the
 * process is spawned, so a dispatcher killed at any instant finds every attempt it may have
 * started (by the marker in its environment; by PID once that is written). The PID and start
 * token ride with the attempt's end, or are written on their own once the attempt has run
 * {@link RUNNING_RECORD_DELAY_MS} (see `markRunning`). The finished record is returned for
 * the caller to persist together with the task's next phase, in one atomic write.
 */
export async function runAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  given: AttemptInputs,
): Promise<AttemptResult> {
  // The prompt quotes gate output, evidence and review findings: it reaches prompt.md and the
  // agent's argv with every secret redacted.
  const inputs = { ...given, prompt: redactSecrets(given.prompt, ctx.secrets) };
  const now = ctx.now();
  const record = startingRecord(rt, inputs, now);
  rt.state.attempts.push(record);
  const launch = planLaunch(ctx, given, inputs);
  await persist(ctx, rt);

  const agentModel = `${inputs.target.agent}/${inputs.target.model}`;
  const row = attemptRowFields(ctx, rt, record, agentModel);
  try {
    await ctx.workLog.start(rt.group, { ...row, kind: 'START', time: now, result: 'running' });
  } catch (error) {
    return finish(ctx, record, {
      class: 'work-log-failure',
      confidence: 'certain',
      evidence: [error instanceof Error ? error.message : String(error)],
    });
  }
  if ('refused' in launch.delivery) {
    return refusedPrompt(ctx, rt, row, record, launch.delivery.refused);
  }
  let handle: RunHandle;
  try {
    handle = await spawnAgent(ctx, rt, inputs, record, launch);
  } catch (error) {
    return spawnFailed(ctx, rt, row, record, error);
  }
  markRunning(ctx, rt, inputs, record, handle);
  const result = await awaitAttempt(ctx, rt, record, handle);
  await checkSource(ctx, rt, record);
  takeReturnedPlan(ctx, rt, record);
  return result;
}

/** The record of an attempt about to start (status `starting`), before anything is spawned. */
function startingRecord(rt: TaskRuntime, inputs: AttemptInputs, now: Date): AttemptRecord {
  const record: AttemptRecord = {
    id: inputs.attemptId,
    role: inputs.role,
    planLoop: rt.state.planLoop,
    target: inputs.targetId,
    attemptDir: inputs.attemptDir,
    status: 'starting',
    startedAt: now.toISOString(),
  };
  const revision = rt.state.decisions[decisionKeyOf(inputs.role)]?.catalogRevision;
  if (revision !== undefined) record.catalogRevision = revision;
  return record;
}

/** How an attempt's agent is launched: its argv and how the prompt reaches it. */
interface LaunchPlan {
  argv: readonly string[];
  delivery: PromptDeliveryPlan;
  /** The target monitors the agent's native session. */
  native: boolean;
}

/** Writes prompt.md and decides how the (redacted) prompt reaches the agent. */
function planLaunch(ctx: DispatchContext, given: AttemptInputs, inputs: AttemptInputs): LaunchPlan {
  writeOwnedFileBelow(
    ctx.workspace,
    join(inputs.attemptDir, 'prompt.md'),
    inputs.prompt,
    'replace',
  );
  // A resume argv was planned with the prompt as given: it gets the redacted one too.
  const filled = attemptArgv(ctx, inputs).map((a) => (a === given.prompt ? inputs.prompt : a));
  const runtime = inputs.target.runtime;
  const native = runtime.native_session_monitor !== undefined;
  const delivery = deliverPrompt(
    ctx,
    inputs,
    filled,
    runnerIfAny(ctx, runtime.output_format, native),
  );
  const argv = 'refused' in delivery ? filled : delivery.argv;
  return { argv, delivery, native };
}

/** Refused before spawning: retrying the same prompt cannot help (the stage blocks). */
function refusedPrompt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  row: AttemptRowFields,
  record: AttemptRecord,
  refused: string,
): AttemptResult {
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: 'generic-error',
  });
  return finish(ctx, record, {
    class: 'generic-error',
    confidence: 'certain',
    reason: 'prompt-too-long',
    evidence: [`SY_PROMPT_TOO_LONG: ${refused}`],
  });
}

/** Starts the agent through its runner (the `starting` record is already durable). */
async function spawnAgent(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
  record: AttemptRecord,
  launch: LaunchPlan,
): Promise<RunHandle> {
  // The task's plan files as they are now: an agent changes only its copy (see plan-copy).
  notePlanFiles(rt, inputs.attemptDir);
  const runner = runnerForTarget(ctx, inputs.target.runtime.output_format, launch.native);
  const env = attemptEnv(ctx, rt, inputs);
  const sandbox = attemptSandbox(ctx, rt, inputs, env, launch.argv, runner);
  if (sandbox) record.sandbox = sandbox.mode;
  // What the source checkout holds now: an agent may change nothing there (see source-watch).
  // A sandboxed agent cannot write it, so what changes there meanwhile is the user's: kept.
  else await snapshotSource(ctx, inputs.attemptDir);
  return await runner.start(runnerSpec(ctx, rt, inputs, record, launch, env, sandbox));
}

/** What the runner is told to start. */
function runnerSpec(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
  record: AttemptRecord,
  launch: LaunchPlan,
  env: Readonly<Record<string, string>>,
  sandbox: SandboxSpec | undefined,
): RunnerSpec {
  const { argv, delivery, native } = launch;
  const runtime = inputs.target.runtime;
  return {
    attemptId: record.id,
    attemptDir: inputs.attemptDir,
    agent: inputs.target.agent,
    outputFormat: runtime.output_format,
    argv,
    ...('stdin' in delivery && delivery.stdin
      ? { stdinFile: join(inputs.attemptDir, 'prompt.md') }
      : {}),
    cwd: workdirOf(ctx, rt),
    env,
    ...(sandbox ? { sandbox } : {}),
    stallTimeoutMs: ctx.options.stallTimeoutMs,
    retryLoopTimeoutMs: ctx.options.retryLoopTimeoutMs ?? ctx.options.stallTimeoutMs,
    ...attemptTimeLimitMs(ctx, runtime),
    isRetryLine: ctx.options.plugins.isRetryLineFor(inputs.target.agent),
    ...transcriptOf(ctx, inputs.target.agent),
    ...(ctx.secrets.length > 0 ? { secrets: ctx.secrets } : {}),
    locator: locatorFields(ctx, rt, inputs, argv),
    ...(native
      ? {
          nativeSession: {
            monitor: true,
            ...(runtime.session_path ? { sessionPath: runtime.session_path } : {}),
          },
        }
      : {}),
    ...(ctx.options.killGraceMs !== undefined ? { killGraceMs: ctx.options.killGraceMs } : {}),
  };
}

/** The runner could not start the agent: a spawn failure finishes the attempt, others throw. */
function spawnFailed(
  ctx: DispatchContext,
  rt: TaskRuntime,
  row: AttemptRowFields,
  record: AttemptRecord,
  error: unknown,
): AttemptResult {
  const message = error instanceof Error ? error.message : String(error);
  const verdict: Classification = {
    class: 'generic-error',
    confidence: 'certain',
    evidence: [message],
  };
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: verdict.class,
  });
  if (SwitchyardError.is(error) && error.code !== 'SY_RUNNER_SPAWN') throw error;
  return finish(ctx, record, verdict);
}

/**
 * How long an attempt runs before its PID is written on its own; a shorter one's PID rides
 * with its end's write (one task-state write per attempt fewer).
 */
export const RUNNING_RECORD_DELAY_MS = 1000;

/**
 * Records the live agent (PID + start token) in memory and announces it. Written with the
 * attempt's end, or after {@link RUNNING_RECORD_DELAY_MS} while it still runs: nothing waits
 * for it. A crash before that finds the `starting` record, and the process by its marker
 * (`probeAttempt`): re-attached while it lives, judged from its locator (the runner wrote PID
 * and start token there right after the spawn) and evidence once gone, never started again
 * beside itself. `status` finds it the same way.
 */
function markRunning(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
  record: AttemptRecord,
  handle: RunHandle,
): void {
  record.status = 'running';
  record.pid = handle.pid;
  if (handle.startToken !== undefined) record.startToken = handle.startToken;
  // Only while the attempt runs: once it ended in memory, its end and the task's next phase
  // are written together by the caller.
  persistWithin(
    ctx,
    rt,
    `running ${rt.id} ${record.id}`,
    RUNNING_RECORD_DELAY_MS,
    () => record.status === 'running',
  );
  ctx.bus.emit({
    type: 'attempt.started',
    task: rt.id,
    role: inputs.role,
    planLoop: rt.state.planLoop,
    attempt: record.id,
    target: inputs.targetId,
    agent: inputs.target.agent,
    model: inputs.target.model,
    pid: handle.pid,
    attemptDir: inputs.attemptDir,
    ...(record.sandbox ? { sandbox: record.sandbox } : {}),
  });
}

function runnerIfAny(
  ctx: DispatchContext,
  format: 'text' | 'jsonl',
  native: boolean,
): RunnerPlugin | undefined {
  try {
    return runnerForTarget(ctx, format, native);
  } catch {
    return undefined; // reported where the attempt starts
  }
}

function transcriptOf(ctx: DispatchContext, agent: string) {
  const transcript = ctx.options.plugins.transcriptFor(agent);
  return transcript ? { transcript } : {};
}
