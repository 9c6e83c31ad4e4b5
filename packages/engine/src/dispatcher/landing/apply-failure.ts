import type {
  AttemptRecord,
  Classification,
  Correction,
  Decision,
  DecisionKey,
  FailureClass,
} from '@switchyard/core';
import { evidenceMessage } from '@switchyard/runner-kit';
import {
  type BudgetStageName,
  backToWorkerOutcome,
  type CheckStageName,
  LIFECYCLE,
} from '../../lifecycle/index.js';
import { decideAfterFailure, STAGE_FAILURE_BUDGET } from '../../selection/on-failure.js';
import { advance } from '../advance.js';
import { blockTask } from '../corrections/block-task.js';
import { waitForQuotaReset } from '../corrections/park-stage.js';
import {
  countRepeat,
  DEFAULT_MAX_REPEATED_CORRECTIONS,
} from '../corrections/repeated-correction.js';
import { noteTargetFault } from '../shared/target-faults.js';
import { waitUntil } from '../task-wait.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

export { blockTask } from '../corrections/block-task.js';

/** Which failure counter an attempt counts against. */
export type BudgetStage = BudgetStageName;

/** A failed check after the worker: what the worker is told, and how a spent budget reads. */
export interface CheckFailure {
  /** The stage the failure is charged to (its own counter in `failures`). */
  stage: CheckStageName;
  correction: Correction;
  /** The block reason once `count` consecutive failures have spent the budget. */
  blockReason: (count: number) => string;
  /** The block's evidence; the correction's by default. */
  blockEvidence?: readonly string[];
}

/**
 * The budget rule of every check after the worker (write set, definition of done, project
 * gates, apply): the failure counts against its stage; the STAGE_FAILURE_BUDGET-th in a row
 * blocks the task with evidence, and so does the same correction (same reason, same gate
 * output) `maxRepeatedCorrections` times in a row; an earlier one sends it back to the worker
 * with the correction. The caller persists.
 */
export function correctOrBlock(ctx: DispatchContext, rt: TaskRuntime, failure: CheckFailure): void {
  const failures = rt.state.failures;
  const { stage, correction } = failure;
  const repeats = countRepeat(rt.state, stage, correction);
  const limit = ctx.options.maxRepeatedCorrections ?? DEFAULT_MAX_REPEATED_CORRECTIONS;
  // Told the same thing `limit` times in a row, the agent will not do better on the next try:
  // a human is asked now instead of after the whole budget is spent.
  const repeating = limit > 0 && repeats >= limit;
  if (repeating || failures[stage] + 1 >= STAGE_FAILURE_BUDGET) {
    failures[stage] += 1;
    blockTask(ctx, rt, {
      stage,
      reason: repeating
        ? `the agent repeats itself: the same ${stage} correction ${repeats} times in a row (${correction.summary})`
        : failure.blockReason(failures[stage]),
      evidence: [...(failure.blockEvidence ?? correction.evidence)],
      ...(correction.file ? { output: correction.file } : {}),
      consecutiveFailures: failures[stage],
    });
    return;
  }
  advance(rt, backToWorkerOutcome(stage)!, { correction });
}

/**
 * A control-plane failure (the dispatcher's own files, not the agent) holds the task for the
 * rest of this run without charging its stage: the run exits 1 and the next run continues.
 */
export function haltTask(
  ctx: DispatchContext,
  rt: TaskRuntime,
  code: string,
  message: string,
): void {
  rt.halted = message;
  ctx.controlFailures.push(`${rt.id}: ${message}`);
  ctx.bus.emit({ type: 'control.failure', code, message: `${rt.id}: ${message}` });
}

/**
 * Applies the failover rules to a failed attempt: counts it against the stage budget, then
 * fails over to the next unused candidate, schedules a retry (backoff, cooldowns), or
 * blocks. An interrupted attempt (the run was stopped) counts for nothing.
 */
export function applyFailure(
  ctx: DispatchContext,
  rt: TaskRuntime,
  budget: BudgetStage,
  decisionStage: DecisionKey,
  record: AttemptRecord,
  verdict: Classification,
): void {
  if (record.interrupted) return;
  if (verdict.class === 'work-log-failure') {
    haltTask(ctx, rt, 'SY_WORK_LOG', verdict.evidence[0] ?? 'the work log cannot be written');
    return;
  }
  const state = rt.state;
  delete state.parked;
  // A reset the provider named holds the target for every task of the store, this one's
  // outcome aside (failover, park or block).
  if (verdict.retryAfter && Date.parse(verdict.retryAfter) > ctx.now().getTime())
    noteTargetFault(rt, record.target, verdict.retryAfter, verdict.class);
  const decision = state.decisions[decisionStage];
  if (state.phase === budget) advance(rt, 'failed');
  else state.failures[budget] += 1;
  const failureClass = verdict.class as FailureClass;
  if (verdict.reason !== undefined) record.reason = verdict.reason;
  const block = blockAtOnce(rt, decisionStage, decision, record, verdict);
  if (block) {
    // The fields in the order the state file has always shown them.
    const info = block.auth
      ? { reason: block.reason, evidence: block.evidence, stage: budget, class: failureClass }
      : { stage: budget, reason: block.reason, evidence: block.evidence, class: failureClass };
    blockTask(ctx, rt, info);
    return;
  }
  // Whether the stage may wait out a quota reset or move to another candidate: its row says.
  const row = LIFECYCLE[budget];
  if (
    row.quotaPark &&
    waitForQuotaReset(ctx, rt, budget, decisionStage, decision!, record, verdict)
  )
    return;
  const action = decideAfterFailure({
    decision: decision!,
    targets: ctx.catalog.targets,
    failureClass,
    evidence: verdict.evidence,
    retryAfter: verdict.retryAfter,
    consecutiveFailures: state.failures[budget],
    cooldowns: state.cooldowns,
    retry: ctx.options.retry,
    now: ctx.now(),
    allowFailover: row.failover,
  });
  if (action.kind === 'block') {
    blockTask(ctx, rt, {
      stage: budget,
      reason: action.reason,
      evidence: action.evidence,
      class: failureClass,
      consecutiveFailures: action.consecutiveFailures,
    });
    return;
  }
  state.decisions[decisionStage] = action.decision;
  state.cooldowns = action.cooldowns;
  waitUntil(ctx, rt, new Date(action.notBefore));
  if (action.kind === 'failover') announceFailover(ctx, rt, record, verdict, action);
  else announceRetry(ctx, rt, record, verdict, action, state.failures[budget]);
}

/** A failure no retry can mend: no decision, a prompt the target refuses, a rejected credential. */
function blockAtOnce(
  rt: TaskRuntime,
  decisionStage: DecisionKey,
  decision: Decision | undefined,
  record: AttemptRecord,
  verdict: Classification,
): { reason: string; evidence: string[]; auth?: true } | undefined {
  if (!decision) return { reason: `no ${decisionStage} decision`, evidence: verdict.evidence };
  if (verdict.reason === 'prompt-too-long')
    // refused before spawning: the same prompt would be refused again on any retry
    return {
      reason: `prompt too long for target ${record.target}: ${verdict.evidence[0] ?? ''}`,
      evidence: [...verdict.evidence],
    };
  const auth = authenticationBlock(rt, record, verdict);
  return auth ? { ...auth, auth: true } : undefined;
}

type AfterFailure = ReturnType<typeof decideAfterFailure>;

/** The stage moves to another candidate: the next prompt cites the failed attempt. */
function announceFailover(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
  action: Extract<AfterFailure, { kind: 'failover' }>,
): void {
  rt.state.failoverFrom = record.id;
  ctx.bus.emit({
    type: 'target.failover',
    task: rt.id,
    // The red-team review decides from the review route's candidates.
    stage: action.decision.stage,
    from: action.from,
    to: action.to,
    class: verdict.class as FailureClass,
    evidence: verdict.evidence,
  });
}

/** The stage retries after its backoff. */
function announceRetry(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
  action: Extract<AfterFailure, { kind: 'retry' }>,
  consecutiveFailures: number,
): void {
  // Once the stage carries failover context, it always cites the latest failed attempt.
  if (action.target !== record.target || rt.state.failoverFrom !== undefined) {
    rt.state.failoverFrom = record.id;
  }
  ctx.bus.emit({
    type: 'attempt.retry-scheduled',
    task: rt.id,
    role: record.role,
    target: action.target,
    delayMs: action.delayMs,
    consecutiveFailures,
    reason: `${verdict.class}${verdict.evidence[0] ? `: ${evidenceMessage(verdict.evidence[0])}` : ''}`,
  });
}

/**
 * A rejected credential is not fixed by waiting: the second authentication failure in a row
 * on the same target (one retry, for a key rotated meanwhile) blocks the stage at once.
 */
function authenticationBlock(
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
): { reason: string; evidence: string[] } | undefined {
  if (verdict.reason !== 'authentication') return undefined;
  const earlier = rt.state.attempts.filter(
    (a) => a !== record && a.role === record.role && a.status === 'finished' && !a.interrupted,
  );
  const previous = earlier.at(-1);
  if (previous?.reason !== 'authentication' || previous.target !== record.target) return undefined;
  const message = verdict.evidence[0] ? evidenceMessage(verdict.evidence[0]) : verdict.class;
  return {
    reason: `authentication failed for target ${record.target}: ${message}`,
    evidence: [...verdict.evidence],
  };
}
