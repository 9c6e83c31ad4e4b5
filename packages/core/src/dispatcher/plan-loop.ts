import { applyRouting } from '../routing/route-task.js';
import { loadTask } from '../workspace/load.js';
import { planFileName } from '../workspace/paths.js';
import { advance } from './advance.js';
import { blockTask } from './apply-failure.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { currentPlan } from './prompt-facts.js';

/**
 * Starts plan loop N+1 from the reviewer's `PLAN-<N+1>.md`: the task's contract is read
 * again (its write set becomes the union of every plan's, so the claim only grows) and the
 * worker runs next. A follow-up plan that breaks the contract blocks the task.
 */
export async function advancePlanLoop(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const state = rt.state;
  advance(rt, 'changes-requested');
  reloadTask(ctx, rt);
  ctx.bus.emit({
    type: 'task.plan-loop',
    task: rt.id,
    planLoop: state.planLoop,
    plan: currentPlan(rt),
  });
}

/** Re-reads one task's plans from disk (after a new plan loop, or on restart). */
export function reloadTask(ctx: DispatchContext, rt: TaskRuntime): void {
  const fresh = loadTask(ctx.workspace, rt.id);
  if (!fresh?.valid || fresh.planLoop < rt.state.planLoop) {
    const problems = fresh?.problems.filter((p) => p.severity !== 'warning') ?? [];
    blockTask(ctx, rt, {
      stage: 'plan',
      reason: fresh
        ? `${planFileName(rt.state.planLoop)} cannot be used (${problems.length} problem(s))`
        : 'the task folder is gone',
      evidence: problems.map((p) => `${p.file ?? ''}:${p.line ?? ''} ${p.message}`),
    });
    return;
  }
  applyRouting(fresh, ctx.options.routing);
  rt.task = fresh;
}
