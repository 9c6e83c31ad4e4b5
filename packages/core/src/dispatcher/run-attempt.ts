import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { recordClassification } from '../attempt/record-classification.js';
import { SwitchyardError } from '../errors.js';
import { classifyEvidence } from '../evidence/classify-evidence.js';
import type { RunHandle, RunnerPlugin, RunOutcome } from '../plugins/runner-types.js';
import type { Classification } from '../plugins/types.js';
import type { AttemptRecord } from '../state/state-schema.js';
import { type AttemptInputs, attemptArgv, attemptEnv, locatorFields } from './attempt-spec.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';
import { judgeReviewAttempt } from './review-judge.js';
import { judgeUnobservedExit } from './unobserved-exit.js';

/** A finished attempt: its (finalized, not yet persisted) record and its verdict. */
export interface AttemptResult {
  record: AttemptRecord;
  verdict: Classification;
}

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
 * process is spawned, and again with PID + start token right after, so a dispatcher killed
 * at any instant finds every attempt it may have started (by PID, or by marker). The
 * finished record is returned for the caller to persist together with the task's next
 * phase, in one atomic write.
 */
export async function runAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  inputs: AttemptInputs,
): Promise<AttemptResult> {
  const now = ctx.now();
  const record: AttemptRecord = {
    id: inputs.attemptId,
    role: inputs.role,
    planLoop: rt.state.planLoop,
    target: inputs.targetId,
    attemptDir: inputs.attemptDir,
    status: 'starting',
    startedAt: now.toISOString(),
  };
  rt.state.attempts.push(record);
  mkdirSync(inputs.attemptDir, { recursive: true });
  writeFileSync(join(inputs.attemptDir, 'prompt.md'), inputs.prompt);
  const argv = attemptArgv(ctx, inputs);
  await persist(ctx, rt);

  const locatorPath = relative(ctx.workspace, join(inputs.attemptDir, 'locator.json'));
  const agentModel = `${inputs.target.agent}/${inputs.target.model}`;
  const row = {
    task: rt.id,
    planLoop: rt.state.planLoop,
    role: inputs.role,
    attempt: record.id,
    agentModel,
    locator: locatorPath,
  };
  try {
    ctx.workLog.start(rt.group, { ...row, kind: 'START', time: now, result: 'running' });
  } catch (error) {
    return finish(ctx, record, {
      class: 'work-log-failure',
      confidence: 'certain',
      evidence: [error instanceof Error ? error.message : String(error)],
    });
  }

  const runtime = inputs.target.runtime;
  const native = runtime.native_session_monitor !== undefined;
  let handle: RunHandle;
  try {
    const runner = runnerForTarget(ctx, runtime.output_format, native);
    handle = await runner.start({
      attemptId: record.id,
      attemptDir: inputs.attemptDir,
      agent: inputs.target.agent,
      outputFormat: runtime.output_format,
      argv,
      cwd: ctx.workspace,
      env: attemptEnv(ctx, rt, inputs),
      stallTimeoutMs: ctx.options.stallTimeoutMs,
      retryLoopTimeoutMs: ctx.options.retryLoopTimeoutMs ?? ctx.options.stallTimeoutMs,
      isRetryLine: ctx.options.plugins.isRetryLineFor(inputs.target.agent),
      ...transcriptOf(ctx, inputs.target.agent),
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
    });
  } catch (error) {
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
  record.status = 'running';
  record.pid = handle.pid;
  if (handle.startToken !== undefined) record.startToken = handle.startToken;
  const persisted = persist(ctx, rt);
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
  });
  await persisted;
  return awaitAttempt(ctx, rt, record, handle, agentModel);
}

/** Awaits a started (or re-attached) attempt, classifies it and finalizes its record. */
export async function awaitAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  handle: RunHandle,
  agentModel: string,
): Promise<AttemptResult> {
  ctx.handles.set(record.id, handle);
  // Interrupted while this attempt was being launched: stop it like the others.
  if (ctx.signal.aborted) void handle.cancel();
  let outcome: RunOutcome;
  try {
    outcome = await handle.done;
  } finally {
    ctx.handles.delete(record.id);
  }
  const agent = outcome.evidence.agent;
  if (outcome.endedBy === 'cancel' && ctx.signal.aborted) record.interrupted = true;
  const classified: Classification = record.interrupted
    ? {
        class: 'process-termination',
        confidence: 'certain',
        evidence: ['stopped: the run was interrupted'],
        classifier: 'dispatcher',
      }
    : judgeUnobservedExit(
        outcome,
        await classifyEvidence(outcome.evidence, ctx.options.plugins.classifiersFor(agent), {
          endedAt: outcome.endedAt,
          timeZone: ctx.options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
        }),
      );
  const verdict = record.role === 'review' ? judgeReviewAttempt(ctx, rt, classified) : classified;
  record.exitCode = outcome.exitCode;
  record.signal = outcome.signal;
  if (outcome.sessionId !== undefined) record.sessionId = outcome.sessionId;
  // The evidence directory explains itself; a missing or broken locator only loses that note.
  await recordClassification(record.attemptDir, verdict).catch(() => undefined);
  const locator = relative(ctx.workspace, join(record.attemptDir, 'locator.json'));
  ctx.workLog.finish(rt.group, {
    kind: 'FINISH',
    time: ctx.now(),
    task: rt.id,
    planLoop: record.planLoop,
    role: record.role,
    attempt: record.id,
    agentModel,
    result: record.interrupted ? 'interrupted' : verdict.class,
    locator,
  });
  const result = finish(ctx, record, verdict);
  ctx.bus.emit({
    type: 'attempt.finished',
    task: rt.id,
    role: record.role,
    planLoop: record.planLoop,
    attempt: record.id,
    target: record.target,
    result: verdict.class,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    evidence: verdict.evidence,
    durationMs: outcome.endedAt.getTime() - outcome.startedAt.getTime(),
    attemptDir: record.attemptDir,
  });
  return result;
}

/** Marks a record finished with a verdict (in memory; the caller persists). */
export function finish(
  ctx: DispatchContext,
  record: AttemptRecord,
  verdict: Classification,
): AttemptResult {
  record.status = 'finished';
  record.endedAt = ctx.now().toISOString();
  record.result = verdict.class;
  record.evidence = verdict.evidence;
  if (verdict.retryAfter !== undefined) record.retryAfter = verdict.retryAfter;
  return { record, verdict };
}

function transcriptOf(ctx: DispatchContext, agent: string) {
  const transcript = ctx.options.plugins.transcriptFor(agent);
  return transcript ? { transcript } : {};
}
