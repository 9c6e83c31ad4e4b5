import {
  agentsOf,
  resolveNamedTarget,
  reviewCandidates,
  selectCandidates,
} from '@switchyard/catalog';
import { type Decision, type DecisionStage, isRouteId } from '@switchyard/core';
import { checkDecision, decideTarget } from '../../selection/decide.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * The stage's decision: the persisted one while the catalog revision and target snapshot
 * still match (resume pins it), a new one when there is none: the worker's from the PLAN's
 * `target` pin, else the run's `with <name>` (a target id or an agent), else its route; the
 * review's from its route, never on the worker's target while the route has another. A persisted decision that no
 * longer matches fails closed: the task blocks with the old and new revisions, and only
 * `--retry-blocked` (which drops the stale decisions) lets it decide again.
 */
export function ensureDecision(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: DecisionStage,
): Decision | undefined {
  const existing = rt.state.decisions[stage];
  if (existing) {
    const check = checkDecision(existing, ctx.catalogFacts);
    if (check.valid && !reviewsOwnWork(ctx, rt, stage, existing)) return existing;
    if (check.valid) return decideAgain(ctx, rt, stage);
    blockTask(ctx, rt, {
      stage,
      reason: `catalog changed: ${check.reason}`,
      evidence: [
        `decided revision: ${check.oldRevision} (${existing.catalogSource})`,
        `current revision: ${check.newRevision} (${ctx.catalogFacts.source})`,
      ],
      catalog: { old: check.oldRevision, new: check.newRevision },
    });
    return undefined;
  }
  return decideAgain(ctx, rt, stage);
}

/**
 * A review decided in an earlier plan loop whose target has since become the worker's (the
 * worker failed over onto it): decided again while the route has another candidate, so no
 * target reviews its own work. Called only before a new review attempt (a re-attached one
 * keeps its record).
 */
function reviewsOwnWork(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: DecisionStage,
  decision: Decision,
): boolean {
  const worker = rt.state.decisions.worker?.target;
  if (stage !== 'review' || worker === undefined || decision.target !== worker) return false;
  const route = rt.task.route ?? '';
  if (!isRouteId(route)) return false;
  const candidates = selectCandidates(ctx.catalog, stage, route, ctx.now()).candidates;
  return reviewCandidates(candidates, worker).some((c) => c !== worker);
}

/** A new decision for the stage from the PLAN pin, `with` and the route (see ensureDecision). */
function decideAgain(
  ctx: DispatchContext,
  rt: TaskRuntime,
  stage: DecisionStage,
): Decision | undefined {
  const route = rt.task.route ?? '';
  if (!isRouteId(route)) {
    blockTask(ctx, rt, { stage, reason: `PLAN route "${route}" is not a route id`, evidence: [] });
    return undefined;
  }
  try {
    const now = ctx.now();
    const routeCandidates = selectCandidates(ctx.catalog, stage, route, now).candidates;
    // A pin and `with` choose the worker; the review keeps its route, without the target
    // that did the work while the route has another one.
    let runWith: string | undefined;
    if (stage === 'worker' && ctx.options.runWith !== undefined) {
      const named = resolveNamedTarget(ctx.options.runWith, 'with', {
        agents: agentsOf(ctx.catalog.targets),
        routeId: route,
        workerCandidates: routeCandidates,
      });
      if ('error' in named) {
        blockTask(ctx, rt, { stage, reason: named.error, evidence: [named.hint] });
        return undefined;
      }
      runWith = named.target;
    }
    const decision = decideTarget({
      stage,
      routeId: route,
      ...(stage === 'worker' ? { pin: rt.task.target, runWith } : {}),
      routeCandidates:
        stage === 'review'
          ? reviewCandidates(routeCandidates, rt.state.decisions.worker?.target)
          : routeCandidates,
      catalog: ctx.catalogFacts,
      now,
    });
    rt.state.decisions[stage] = decision;
    ctx.bus.emit({
      type: 'stage.decided',
      task: rt.id,
      stage,
      target: decision.target,
      source: decision.source,
      catalogRevision: decision.catalogRevision,
    });
    return decision;
  } catch (error) {
    blockTask(ctx, rt, {
      stage,
      reason: error instanceof Error ? error.message : String(error),
      evidence: [],
    });
    return undefined;
  }
}
