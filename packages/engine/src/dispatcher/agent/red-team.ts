import { agentsOf, redTeamCandidates, selectCandidates } from '@switchyard/catalog';
import { type AttemptRole, type Decision, isRouteId } from '@switchyard/core';
import { promptTemplateOf } from '../../lifecycle/index.js';
import { checkDecision, decideTarget } from '../../selection/decide.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** True for the roles whose attempt writes a review: their prompt is the review's. */
export function isReviewRole(role: AttemptRole): boolean {
  return promptTemplateOf(role) === 'review';
}

/** What the red-team reviewer is asked on top of the review contract. */
export const RED_TEAM_BRIEF = [
  '## Red-team review',
  '',
  'You are the adversarial second reviewer: another reviewer already approved this change.',
  'Try to break it. Look for inputs that make it fail (edge cases, empty and huge values,',
  'bad encodings, concurrency, error paths), behaviour the plan asks for that no test covers,',
  'tests that pass without checking anything, and security holes (injection, path traversal,',
  'secrets in output, unchecked input). Run what you need to prove a failure.',
  'Approve only when you could not break it; otherwise request changes, each finding with the',
  'failing input or the missing test as evidence.',
].join('\n');

/** The agent family of a catalog target: the agent CLI it runs. */
function familyOf(ctx: DispatchContext, targetId: string | undefined): string | undefined {
  return targetId === undefined ? undefined : ctx.catalog.targets[targetId]?.agent;
}

/**
 * The red-team review's target: the persisted one while the catalog still matches, else the
 * first of the review route's candidates whose agent family differs from the worker's. With
 * no such candidate the task blocks (never a silent skip of a review the plan asked for).
 */
export function ensureRedTeamDecision(ctx: DispatchContext, rt: TaskRuntime): Decision | undefined {
  const state = rt.state;
  const existing = state.decisions.redteam;
  if (existing) {
    const check = checkDecision(existing, ctx.catalogFacts);
    if (check.valid) return existing;
    // Fails closed like every persisted decision (see ensure-decision.ts).
    blockTask(ctx, rt, {
      stage: 'redteam',
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
    blockTask(ctx, rt, {
      stage: 'redteam',
      reason: `PLAN route "${route}" is not a route id`,
      evidence: [],
    });
    return undefined;
  }
  const workerTarget = state.decisions.worker?.target;
  const workerFamily = familyOf(ctx, workerTarget);
  const candidates = selectCandidates(ctx.catalog, 'review', route, ctx.now()).candidates;
  const others = redTeamCandidates(candidates, workerTarget, agentsOf(ctx.catalog.targets));
  if (others.length === 0) {
    blockTask(ctx, rt, {
      stage: 'redteam',
      reason: `the red-team review needs a review candidate of another agent family than the worker's (${workerTarget ?? 'none'}: ${workerFamily ?? 'unknown'}), and route ${route} has none: add a target of another agent to its review candidates, or remove \`review: red-team\` from the PLAN`,
      evidence: candidates.map((id) => `review candidate ${id}: agent ${familyOf(ctx, id)}`),
    });
    return undefined;
  }
  const decision = decideTarget({
    stage: 'review',
    routeId: route,
    routeCandidates: others,
    catalog: ctx.catalogFacts,
    now: ctx.now(),
  });
  state.decisions.redteam = decision;
  return decision;
}

/**
 * Before a worker is paid for: a task with `review: red-team` whose red-team review cannot run
 * on any candidate the worker may end on (every worker and review candidate of the route is
 * of one agent family) blocks now, as the dry run reports it, instead of after a worker and a
 * review. True when it blocked. A worker that may fail over to another family goes on.
 */
export function blockInfeasibleRedTeam(
  ctx: DispatchContext,
  rt: TaskRuntime,
  workerCandidates: readonly string[],
): boolean {
  const route = rt.task.route ?? '';
  if (rt.task.review !== 'red-team' || !isRouteId(route) || rt.state.decisions.redteam)
    return false;
  const agents = agentsOf(ctx.catalog.targets);
  const reviews = selectCandidates(ctx.catalog, 'review', route, ctx.now()).candidates;
  if (reviews.length === 0) return false; // the review stage reports a route without candidates
  if (workerCandidates.some((w) => redTeamCandidates(reviews, w, agents).length > 0)) return false;
  const families = [...new Set(workerCandidates.map((w) => agents.get(w) ?? 'unknown'))];
  blockTask(ctx, rt, {
    stage: 'redteam',
    reason: `the red-team review needs a review candidate of another agent family than the worker's (${families.join(', ')}), and route ${route} has none, so no agent was started: add a target of another agent to its review candidates, or remove \`review: red-team\` from the PLAN`,
    evidence: [
      ...workerCandidates.map((id) => `worker candidate ${id}: agent ${agents.get(id)}`),
      ...reviews.map((id) => `review candidate ${id}: agent ${agents.get(id)}`),
    ],
  });
  return true;
}
