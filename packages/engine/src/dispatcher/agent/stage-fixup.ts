import type { Decision } from '@switchyard/core';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { checkDecision, decideTarget } from '../../selection/decide.js';
import { advance } from '../advance.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { type AgentStage, runAgentStage } from './agent-stage.js';
import { minorOnlyFindings } from './fixup-notes.js';
import { failoverFacts, promptContext } from './prompt-facts.js';

/** Where the decision's target comes from (shown in state and status). */
export const FIXUP_ROUTE = 'config:review.fixupTarget';

/**
 * The fixup stage: the target the project config names (`review.fixupTarget`) applies the
 * approving reviews' MINOR findings in the task's working tree — no worker round, no plan loop.
 * Its change is then checked again (write set, definition of done, project gates) before the
 * completion promise; a failure there goes back to the worker like any change.
 */
export const FIXUP_STAGE: AgentStage = {
  role: 'fixup',
  decide: ensureFixupDecision,
  // One target, named by the config: no route to wait on or fail over in.
  holdsSharedTarget: false,
  changesFiles: true,
  prepare: async (ctx, rt, { attemptId }) => ({
    prompt: buildPrompt({
      templates: ctx.options.prompts,
      context: promptContext(ctx, rt, 'fixup', attemptId),
      notes: minorOnlyFindings(rt),
      failover: failoverFacts(rt),
    }),
  }),
  // -> the checks again (its change).
  onSuccess: (_ctx, rt) => advance(rt, 'passed'),
};

/** Runs one fixup attempt and moves the task on. */
export function runFixupStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return runAgentStage(ctx, rt, FIXUP_STAGE);
}

/**
 * The fixup target's decision: the persisted one while the catalog matches, else one for the
 * target the config names now. A config without one (changed since the review) or a target
 * the catalog lacks blocks the stage with what to do.
 */
function ensureFixupDecision(ctx: DispatchContext, rt: TaskRuntime): Decision | undefined {
  const existing = rt.state.decisions.fixup;
  if (existing && checkDecision(existing, ctx.catalogFacts).valid) return existing;
  const id = ctx.options.fixupTarget;
  if (id === undefined || !(id in ctx.catalog.targets)) {
    blockTask(ctx, rt, {
      stage: 'fixup',
      reason:
        id === undefined
          ? 'the fixup stage has no target: the project config no longer names `review.fixupTarget`'
          : `review.fixupTarget names target "${id}", which the catalog does not define`,
      evidence: [`known targets: ${Object.keys(ctx.catalog.targets).join(', ')}`],
    });
    return undefined;
  }
  const decision = decideTarget({
    stage: 'worker',
    routeId: FIXUP_ROUTE,
    pin: id,
    routeCandidates: [],
    catalog: ctx.catalogFacts,
    now: ctx.now(),
  });
  rt.state.decisions.fixup = decision;
  return decision;
}
