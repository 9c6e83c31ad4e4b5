import { join } from 'node:path';
import { applyRouting } from '@switchyard/catalog';
import { planFileName } from '@switchyard/core';
import { loadTask, readPlanText, taskFromPlanTexts } from '@switchyard/tasks';
import { advance } from '../advance.js';
import { currentPlan } from '../agent/prompt-facts.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { admitPlans } from './admitted-plan.js';

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

/**
 * The task's contract for its new plan loop: the admitted plans of the loops before, plus the
 * reviewer's `PLAN-<N+1>.md` as it is now, which is admitted here (added to the record, its
 * checklist the one agents tick next). Without a record (a task from before records): every
 * plan re-read from disk. A plan that cannot be read or breaks the contract blocks the task.
 */
export function reloadTask(ctx: DispatchContext, rt: TaskRuntime): void {
  const plan = rt.state.plan;
  const loop = rt.state.planLoop;
  const name = planFileName(loop);
  const read = plan ? readPlanText(join(rt.task.dir, name), name) : undefined;
  const fresh =
    plan && read
      ? 'text' in read
        ? taskFromPlanTexts(ctx.workspace, rt.id, [
            ...plan.loops.filter((l) => l.loop < loop),
            { loop, text: read.text },
          ])
        : undefined
      : loadTask(ctx.workspace, rt.id);
  if (!fresh?.valid || fresh.planLoop < rt.state.planLoop) {
    const problems =
      fresh?.problems.filter((p) => p.severity !== 'warning') ??
      (read && 'problem' in read ? [read.problem] : []);
    blockTask(ctx, rt, {
      stage: 'plan',
      reason:
        fresh || problems.length > 0
          ? `${name} cannot be used (${problems.length} problem(s))`
          : 'the task folder is gone',
      evidence: problems.map((p) => `${p.file ?? ''}:${p.line ?? ''} ${p.message}`),
    });
    return;
  }
  applyRouting(fresh, ctx.options.routing);
  if (plan && fresh.planTexts) {
    const admitted = admitPlans(fresh.planTexts, fresh.checklist, ctx.now());
    plan.loops = admitted.loops;
    plan.checklist = admitted.checklist;
  }
  rt.task = fresh;
}
