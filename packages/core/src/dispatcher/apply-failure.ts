import type { BudgetStageName } from '../lifecycle/lifecycle-table.js';
import type { FailureClass } from '../plugins/failure-class.js';
import type { Classification } from '../plugins/types.js';
import { decideAfterFailure } from '../selection/on-failure.js';
import type { AttemptRecord, BlockedInfo, DecisionStage } from '../state/state-schema.js';
import { advance } from './advance.js';
import type { DispatchContext, TaskRuntime } from './context.js';

/** Which failure counter an attempt counts against. */
export type BudgetStage = BudgetStageName;

/** Blocks a task: records why, with evidence, and emits `task.blocked`. */
export function blockTask(
  ctx: DispatchContext,
  rt: TaskRuntime,
  info: Omit<BlockedInfo, 'at'>,
): void {
  rt.state.blocked = { ...info, at: ctx.now().toISOString() };
  ctx.bus.emit({
    type: 'task.blocked',
    task: rt.id,
    stage: info.stage,
    reason: info.reason,
    evidence: info.evidence,
  });
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
  decisionStage: DecisionStage,
  record: AttemptRecord,
  verdict: Classification,
): void {
  if (record.interrupted) return;
  const state = rt.state;
  const decision = state.decisions[decisionStage];
  if (state.phase === budget) advance(rt, 'failed');
  else state.failures[budget] += 1;
  const failureClass = verdict.class as FailureClass;
  if (!decision) {
    blockTask(ctx, rt, {
      stage: budget,
      reason: `no ${decisionStage} decision`,
      evidence: verdict.evidence,
      class: failureClass,
    });
    return;
  }
  const action = decideAfterFailure({
    decision,
    targets: ctx.catalog.targets,
    failureClass,
    evidence: verdict.evidence,
    retryAfter: verdict.retryAfter,
    consecutiveFailures: state.failures[budget],
    cooldowns: state.cooldowns,
    retry: ctx.options.retry,
    now: ctx.now(),
    allowFailover: budget !== 'selfcheck',
  });
  if (action.kind === 'block') {
    blockTask(ctx, rt, {
      stage: budget,
      reason: action.reason,
      evidence: action.evidence,
      class: failureClass,
    });
    return;
  }
  state.decisions[decisionStage] = action.decision;
  state.cooldowns = action.cooldowns;
  state.notBefore = action.notBefore;
  if (action.kind === 'failover') {
    state.failoverFrom = record.id;
    ctx.bus.emit({
      type: 'target.failover',
      task: rt.id,
      stage: decisionStage,
      from: action.from,
      to: action.to,
      class: failureClass,
      evidence: verdict.evidence,
    });
    return;
  }
  if (action.target !== record.target) state.failoverFrom = record.id;
  ctx.bus.emit({
    type: 'attempt.retry-scheduled',
    task: rt.id,
    role: record.role,
    target: action.target,
    delayMs: action.delayMs,
    consecutiveFailures: state.failures[budget],
    reason: `${failureClass}${verdict.evidence[0] ? `: ${verdict.evidence[0]}` : ''}`,
  });
}
