import { isRouteId } from '../catalog/constants.js';
import { selectCandidates } from '../catalog/select.js';
import { checkDecision, decideTarget } from '../selection/decide.js';
import type { Decision, DecisionStage } from '../state/state-schema.js';
import { blockTask } from './apply-failure.js';
import type { DispatchContext, TaskRuntime } from './context.js';

/**
 * The stage's decision: the persisted one while the catalog revision and target snapshot
 * still match (resume pins it), a new one when there is none. A persisted decision that no
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
    if (check.valid) return existing;
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
  const route = rt.task.route ?? '';
  if (!isRouteId(route)) {
    blockTask(ctx, rt, { stage, reason: `PLAN route "${route}" is not a route id`, evidence: [] });
    return undefined;
  }
  try {
    const decision = decideTarget({
      stage,
      routeId: route,
      pin: rt.task.target,
      runWith: ctx.options.runWith,
      routeCandidates: selectCandidates(ctx.catalog, stage, route, ctx.now()).candidates,
      catalog: ctx.catalogFacts,
      now: ctx.now(),
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
