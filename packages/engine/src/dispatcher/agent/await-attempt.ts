import type { AttemptRecord, Classification, RunHandle, RunOutcome } from '@switchyard/core';
import {
  capAttemptEvidence,
  classifyEvidence,
  DEFAULT_MAX_ATTEMPT_EVIDENCE_BYTES,
  extractUsage,
  finalizeLocator,
  maskSecretsBelow,
  redactDeep,
} from '@switchyard/runner-kit';
import { classifyContextOf } from '../time-zone.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { collectAuxiliaryLogs } from './auxiliary-logs.js';
import { isReviewRole } from './red-team.js';
import { judgeReviewAttempt } from './review-judge.js';
import { judgeUnobservedExit } from './unobserved-exit.js';

/** A finished attempt: its (finalized, not yet persisted) record and its verdict. */
export interface AttemptResult {
  record: AttemptRecord;
  verdict: Classification;
}

/** Awaits a started (or re-attached) attempt, classifies it and finalizes its record. */
export async function awaitAttempt(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  handle: RunHandle,
): Promise<AttemptResult> {
  ctx.handles.set(record.id, handle);
  // Interrupted while this attempt was being launched: stop it like the others.
  if (ctx.signal.aborted || rt.stopRequested) void handle.cancel();
  let outcome: RunOutcome;
  try {
    outcome = await handle.done;
  } finally {
    ctx.handles.delete(record.id);
  }
  const agent = outcome.evidence.agent;
  const version = ctx.options.agentVersions?.[record.target];
  if (version !== undefined) outcome.evidence.agentVersion ??= version;
  // Stopped with the run, or the task stopped by a human: the attempt counts for nothing.
  if (outcome.endedBy === 'cancel' && (ctx.signal.aborted || rt.stopRequested))
    record.interrupted = true;
  const classified: Classification = record.interrupted
    ? interruptedVerdict(ctx)
    : judgeUnobservedExit(
        outcome,
        await classifyEvidence(
          outcome.evidence,
          ctx.options.plugins.classifiersFor(agent),
          classifyContextOf(ctx, outcome.endedAt),
        ),
      );
  // Evidence lines quote agent output: no credential goes on into state, events or logs.
  const verdict = redactDeep(
    isReviewRole(record.role) ? judgeReviewAttempt(ctx, rt, classified) : classified,
    ctx.secrets,
  );
  record.exitCode = outcome.exitCode;
  record.signal = outcome.signal;
  if (outcome.sessionId !== undefined) record.sessionId = outcome.sessionId;
  collectAuxiliaryLogs(ctx, record);
  // The captures (stdout.raw, stream.log, transcript, auxiliary logs) hold what the agent
  // printed, environment dumps included: mask every secret in place.
  maskSecretsBelow(record.attemptDir, ctx.secrets);
  // Classified from the tails the runner kept: the files themselves keep head and tail only.
  capAttemptEvidence(
    record.attemptDir,
    ctx.options.maxAttemptEvidenceBytes ?? DEFAULT_MAX_ATTEMPT_EVIDENCE_BYTES,
  );
  const usage = extractUsage(outcome.evidence, ctx.options.plugins.classifiersFor(agent));
  if (usage) record.usage = usage;
  // The evidence directory explains itself; a missing or broken locator only loses that note.
  await finalizeLocator(record.attemptDir, verdict).catch(() => undefined);
  const result = finish(ctx, record, verdict);
  // The work log's FINISH row is written by its bus subscriber (work-log-subscriber.ts).
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
    durationMs:
      outcome.durationMs ?? Math.max(0, outcome.endedAt.getTime() - outcome.startedAt.getTime()),
    attemptDir: record.attemptDir,
    ...(usage ? { usage } : {}),
  });
  return result;
}

/** The verdict of an attempt stopped with the run or by a human: it counts for nothing. */
function interruptedVerdict(ctx: DispatchContext): Classification {
  return {
    class: 'process-termination',
    confidence: 'certain',
    evidence: [
      ctx.signal.aborted ? 'stopped: the run was interrupted' : 'stopped: a human stopped the task',
    ],
    classifier: 'dispatcher',
  };
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
  record.evidence = redactDeep(verdict.evidence, ctx.secrets);
  if (verdict.retryAfter !== undefined) record.retryAfter = verdict.retryAfter;
  return { record, verdict };
}
