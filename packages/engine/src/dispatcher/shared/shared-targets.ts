import type { Decision, DecisionKey, TargetState } from '@switchyard/core';
import type { BudgetStageName } from '../../lifecycle/index.js';
import { followQuotaResets } from '../corrections/park-stage.js';
import { waitUntil } from '../task-wait.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * Target cool-downs and parks shared through `store.targets`: every task records the resets
 * it saw with `noteTargetFault` (written by its next `persist`, fenced: `targets.json` in the
 * file store, a table in PostgreSQL). On a shared backlog a stage checks
 * {@link holdForSharedTarget} before it starts an attempt, so a quota reset one machine saw
 * keeps every machine's tasks off that target until it lifts.
 */

/** The stage about to start an attempt on its decision's target. */
export interface HeldStage {
  decisionKey: DecisionKey;
  budget: BudgetStageName;
  /** False when the stage must stay on its target (the self-check): it only waits. */
  failover: boolean;
}

/**
 * True when the stage must not start on its decision's target now, because the store says
 * the target cools down or is parked (shared backlog only; a reset the task saw itself is
 * weighed by its own failover and park rules instead): the stage moves to a free candidate of its decision
 * (`target.failover`, an unused one first), parks on the earliest reset when every candidate
 * is held (as after its own quota errors, within the park budget), or, when it may not move,
 * waits until the target is free. Nothing is charged to the stage's failure budget. The task
 * is changed in memory; the caller persists.
 */
export async function holdForSharedTarget(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: HeldStage,
): Promise<boolean> {
  // One machine keeps today's rules (a task's resets hold its own stage only); the machines of
  // a shared backlog honour each other's.
  if (!ctx.shared) return false;
  const decision = rt.state.decisions[stage.decisionKey];
  if (!decision) return false;
  const held = heldTargets(await ctx.store.targets.list(), ctx.now().getTime());
  // A reset the task saw itself is in its own cool-downs, where the failover and park rules
  // weigh it for the stage that saw it (its other stages are not held by it, as before).
  for (const [target, hold] of held)
    if (Date.parse(rt.state.cooldowns[target] ?? '') >= Date.parse(hold.until)) held.delete(target);
  const hold = held.get(decision.target);
  if (hold === undefined) return false;
  const evidence = [
    `${decision.target}: cooling down until ${hold.until} for every machine of the store (${hold.reason})`,
  ];
  const cooldowns = { ...rt.state.cooldowns };
  for (const target of decision.candidates) {
    const at = held.get(target)?.until;
    if (at !== undefined && !(Date.parse(cooldowns[target] ?? '') >= Date.parse(at)))
      cooldowns[target] = at;
  }
  const now = ctx.now().getTime();
  const free = (c: string) => !(Date.parse(cooldowns[c] ?? '') > now);
  const next = stage.failover ? freeCandidate(rt, stage.decisionKey, decision, free) : undefined;
  if (next === undefined) {
    // Parked (the task's cool-downs then hold every candidate's reset), or made to wait.
    if (stage.failover && followQuotaResets(ctx, rt, { ...stage, decision, cooldowns, evidence }))
      return true;
    waitUntil(ctx, rt, new Date(hold.until));
    return true;
  }
  rt.state.decisions[stage.decisionKey] = {
    ...decision,
    target: next,
    targetSnapshot: ctx.catalog.targets[next],
    used: decision.used.includes(next) ? decision.used : [...decision.used, next],
  };
  ctx.bus.emit({
    type: 'target.failover',
    task: rt.id,
    stage: decision.stage,
    from: decision.target,
    to: next,
    class: 'provider-quota',
    evidence,
  });
  return true;
}

/**
 * A free candidate (neither held by the store nor cooling down for the task), an unused one
 * first; a review never moves onto the worker's target (no target reviews its own work).
 */
function freeCandidate(
  rt: TaskRuntime,
  key: DecisionKey,
  decision: Decision,
  isFree: (target: string) => boolean,
): string | undefined {
  const worker = key === 'worker' ? undefined : rt.state.decisions.worker?.target;
  const free = decision.candidates.filter((c) => isFree(c) && c !== worker);
  return free.find((c) => !decision.used.includes(c)) ?? free[0];
}

interface Hold {
  until: string;
  reason: string;
}

/** Each held target with the later of its cool-down and park instants, when still ahead. */
function heldTargets(states: readonly TargetState[], now: number): Map<string, Hold> {
  const held = new Map<string, Hold>();
  for (const s of states) {
    const cool = Date.parse(s.coolDownUntil ?? '') || 0;
    const park = Date.parse(s.parkedUntil ?? '') || 0;
    const at = Math.max(cool, park);
    if (at <= now) continue;
    const reason = park > cool ? 'parked' : (s.reason ?? 'cooling down');
    held.set(s.target, { until: new Date(at).toISOString(), reason });
  }
  return held;
}
