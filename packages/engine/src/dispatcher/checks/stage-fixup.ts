import type { AttemptRecord, Classification, Decision } from '@switchyard/core';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { checkDecision, decideTarget } from '../../selection/decide.js';
import { advance } from '../advance.js';
import { newAttemptId } from '../agent/attempt-spec.js';
import { minorOnlyFindings } from '../agent/fixup-notes.js';
import { failoverFacts, promptContext } from '../agent/prompt-facts.js';
import { runStageAttempt } from '../agent/stage-attempt.js';
import { type DispatchContext, persist, type TaskRuntime } from '../context.js';
import { applyFailure, blockTask } from '../landing/apply-failure.js';
import { openSharedRound } from '../shared/shared-writes.js';

/** Where the decision's target comes from (shown in state and status). */
export const FIXUP_ROUTE = 'config:review.fixupTarget';

/**
 * The fixup stage: the target the project config names (`review.fixupTarget`) applies the
 * approving reviews' MINOR findings in the task's working tree — no worker round, no plan loop.
 * Its change is then checked again (write set, definition of done, project gates) before the
 * completion promise; a failure there goes back to the worker like any change.
 */
export async function runFixupStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const decision = ensureFixupDecision(ctx, rt);
  if (!decision) return persist(ctx, rt);
  const target = ctx.catalog.targets[decision.target]!;
  const attemptId = newAttemptId(rt.id, 'fixup', rt.state.planLoop);
  const prompt = buildPrompt({
    templates: ctx.options.prompts,
    context: promptContext(ctx, rt, 'fixup', attemptId),
    notes: minorOnlyFindings(rt),
    failover: failoverFacts(rt),
  });
  await openSharedRound(ctx, rt, attemptId);
  const { record, verdict } = await runStageAttempt(ctx, rt, {
    attemptId,
    role: 'fixup',
    targetId: decision.target,
    target,
    prompt,
  });
  afterFixup(ctx, rt, record, verdict);
  await persist(ctx, rt);
}

/** Fixup verdict -> the checks again (its change), or the stage's failure rules. */
export function afterFixup(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  verdict: Classification,
): void {
  if (verdict.class !== 'success') {
    applyFailure(ctx, rt, 'fixup', 'fixup', record, verdict);
    return;
  }
  advance(rt, 'passed');
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
