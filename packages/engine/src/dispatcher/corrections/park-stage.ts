import { join, relative } from 'node:path';
import type { AttemptRecord, Classification, Decision, DecisionKey } from '@switchyard/core';
import { ATTEMPT_FILES, evidenceMessage } from '@switchyard/runner-kit';
import type { BudgetStageName } from '../../lifecycle/index.js';
import { DEFAULT_PARK_POLICY, planQuotaWait } from '../../selection/park.js';
import { noteTargetFault } from '../shared/target-faults.js';
import { waitUntil } from '../task-wait.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { blockTask } from './block-task.js';

/**
 * A quota error that names its reset time, on a stage whose candidates all wait for one
 * (`planQuotaWait`): the failure is not charged to the stage budget; the stage moves to the
 * candidate whose reset comes first and waits until then (`state.parked`, `task.parked`), or
 * goes there at once when that reset has passed (`target.failover`). Past the park budget
 * (config `park`) the stage blocks with every candidate's quota evidence. Returns false,
 * changing nothing, when the rule does not apply.
 */
export function waitForQuotaReset(
  ctx: DispatchContext,
  rt: TaskRuntime,
  budget: BudgetStageName,
  decisionKey: DecisionKey,
  decision: Decision,
  record: AttemptRecord,
  verdict: Classification,
): boolean {
  const now = ctx.now();
  if (!verdict.retryAfter || !(Date.parse(verdict.retryAfter) > now.getTime())) return false;
  const cooldowns = { ...rt.state.cooldowns, [decision.target]: verdict.retryAfter };
  const outcome = followQuotaResets(ctx, rt, {
    budget,
    decisionKey,
    decision,
    cooldowns,
    evidence: verdict.evidence,
    failedAttempt: record.id,
  });
  if (!outcome) return false;
  // The failure was counted on entry; a quota that lifts at a known time is not charged.
  if (outcome !== 'blocked') rt.state.failures[budget] = Math.max(0, rt.state.failures[budget] - 1);
  return true;
}

/** A stage whose candidates' known resets decide where it goes (see {@link followQuotaResets}). */
export interface QuotaResets {
  budget: BudgetStageName;
  decisionKey: DecisionKey;
  decision: Decision;
  /** Target id -> reset instant, every candidate's known one included. */
  cooldowns: Record<string, string>;
  /** Why (the failed attempt's evidence, or the shared target state's). */
  evidence: readonly string[];
  /** The failed attempt whose quota error led here, if one did. */
  failedAttempt?: string;
}

/**
 * Applies `planQuotaWait` to the stage: parks it on the earliest reset (`task.parked`), moves
 * it at once to a candidate whose reset passed (`target.failover`), or blocks it past the park
 * budget. Undefined, changing nothing, when the rule does not apply.
 */
export function followQuotaResets(
  ctx: DispatchContext,
  rt: TaskRuntime,
  input: QuotaResets,
): 'blocked' | 'moved' | 'parked' | undefined {
  const { budget, decisionKey, decision, cooldowns } = input;
  const now = ctx.now();
  const state = rt.state;
  const policy = ctx.options.park ?? DEFAULT_PARK_POLICY;
  const spent =
    state.parkSpent?.stage === budget ? state.parkSpent : { stage: budget, parks: 0, waitedMs: 0 };
  const plan = planQuotaWait({ decision, cooldowns, now, spent, policy });
  if (!plan) return undefined;
  state.cooldowns = cooldowns;
  if (plan.kind === 'over-budget') {
    blockTask(ctx, rt, {
      stage: budget,
      reason: `every candidate of the ${budget} stage keeps answering with a quota reset: ${plan.reason}`,
      evidence: quotaEvidence(ctx, rt, plan.resets),
      class: 'provider-quota',
    });
    return 'blocked';
  }
  const waitMs = plan.kind === 'park' ? Date.parse(plan.until) - now.getTime() : 0;
  const next = { stage: budget, parks: spent.parks + 1, waitedMs: spent.waitedMs + waitMs };
  state.parkSpent = next;
  if (plan.target !== decision.target) {
    state.decisions[decisionKey] = {
      ...decision,
      target: plan.target,
      targetSnapshot: ctx.catalog.targets[plan.target],
    };
    if (input.failedAttempt !== undefined) state.failoverFrom = input.failedAttempt;
  }
  if (plan.kind === 'move') {
    delete state.notBefore;
    ctx.bus.emit({
      type: 'target.failover',
      task: rt.id,
      stage: decision.stage,
      from: decision.target,
      to: plan.target,
      class: 'provider-quota',
      evidence: [
        ...input.evidence,
        `${plan.target}: its quota reset (${plan.resets[plan.target]}) has passed; every other candidate resets later`,
      ],
    });
    return 'moved';
  }
  waitUntil(ctx, rt, new Date(plan.until));
  for (const [target, at] of Object.entries(plan.resets))
    if (Date.parse(at) > now.getTime()) noteTargetFault(rt, target, at, 'provider-quota', true);
  state.parked = {
    stage: budget,
    until: plan.until,
    resets: plan.resets,
    at: now.toISOString(),
    budget: {
      parksLeft: policy.maxParks - next.parks,
      waitLeftMs: Math.max(0, policy.maxWaitMs - next.waitedMs),
    },
  };
  ctx.bus.emit({
    type: 'task.parked',
    task: rt.id,
    stage: budget,
    until: plan.until,
    targets: Object.keys(plan.resets),
  });
  return 'parked';
}

/** Each candidate's reset and the quota error of its last failed attempt, with its locator. */
function quotaEvidence(
  ctx: DispatchContext,
  rt: TaskRuntime,
  resets: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(resets).map(([target, at]) => {
    const last = rt.state.attempts.findLast(
      (a) => a.target === target && a.status === 'finished' && a.result !== 'success',
    );
    if (!last) return `${target}: quota resets at ${at}`;
    const line = last.evidence?.[0];
    const locator = relative(ctx.workspace, join(last.attemptDir, ATTEMPT_FILES.locator));
    return `${target}: quota resets at ${at} (attempt ${last.id}: ${last.result ?? 'failed'}${line ? `: ${evidenceMessage(line)}` : ''}; ${locator})`;
  });
}
