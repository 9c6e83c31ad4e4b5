import type { StartVeto } from '../events/start-guard.js';
import { costBudgetGuard } from './corrections/cost-guard.js';
import { blockTask } from './landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/** Registers the dispatcher's own start guards on the run's bus (the cost budget). */
export function registerStartGuards(ctx: DispatchContext): () => void {
  const removals = [ctx.bus.beforeStart(costBudgetGuard(ctx))];
  return () => {
    for (const remove of removals) remove();
  };
}

/**
 * Asks the bus's start guards whether the task's next stage may start. A refusal blocks the
 * task with the guard's stage, reason and evidence (in memory; the caller persists) and is
 * returned; undefined lets the stage start.
 */
export function refuseStart(ctx: DispatchContext, rt: TaskRuntime): StartVeto | undefined {
  const veto = ctx.bus.requestStart({ task: rt.id, stage: rt.state.phase });
  if (veto) blockTask(ctx, rt, { stage: veto.stage, reason: veto.reason, evidence: veto.evidence });
  return veto;
}
