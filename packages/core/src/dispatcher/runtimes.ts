import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyRouting } from '../routing/route-task.js';
import { checkDecision } from '../selection/decide.js';
import { freshFailures, newTaskState } from '../state/state-schema.js';
import type { LoadedTask, WorkspaceModel } from '../workspace/load.js';
import { archivedTaskDir, planFileName, taskDir } from '../workspace/paths.js';
import { type DispatchContext, persist } from './context.js';
import { advancePlanLoop } from './plan-loop.js';
import { taskStageGates } from './stage-project-gates.js';
import { DEFAULT_MAX_PLAN_LOOPS } from './stage-review.js';

/**
 * One runtime per active task (every group: other groups' claims and dependencies count
 * even under `--task-group`), with its persisted state or a fresh one. A task archived by a
 * previous dispatcher that died before marking it done is picked up to finish its archive.
 */
export async function buildRuntimes(ctx: DispatchContext, model: WorkspaceModel): Promise<void> {
  for (const task of model.tasks) {
    applyRouting(task, ctx.options.routing);
    let state = ctx.store.read(task.id) ?? newTaskState(task.id);
    // An active folder whose state says done was put back by hand: it runs again from scratch.
    if (state.phase === 'done') state = newTaskState(task.id);
    if (state.attempts.length === 0 && state.planLoop < task.planLoop)
      state.planLoop = task.planLoop;
    ctx.tasks.set(task.id, {
      id: task.id,
      group: task.group,
      task,
      state,
      busy: false,
      announced: false,
      hasProjectGates: taskStageGates(ctx.options, task).length > 0,
    });
  }
  for (const state of ctx.store.list()) {
    if (ctx.tasks.has(state.task) || state.phase === 'done') continue;
    // Moved to the archive by hand before it was done (maybe while its agent ran): its
    // attempts are recovered and it counts as archived only once settled (see recover.ts).
    const archivedDir = archivedTaskDir(ctx.workspace, state.task);
    const byHand = state.phase !== 'archive' && existsSync(archivedDir);
    if (state.phase !== 'archive' && !byHand) continue;
    if (byHand) ctx.archived.delete(state.task);
    const [group = '', name = ''] = state.task.split('/');
    const stub: LoadedTask = {
      id: state.task,
      group,
      name,
      dir: taskDir(ctx.workspace, state.task),
      planLoops: [],
      reviewLoops: [],
      planFile: '',
      planLoop: state.planLoop,
      dependsOn: [],
      writeSet: [],
      checklist: [],
      problems: [],
      valid: true,
    };
    ctx.tasks.set(state.task, {
      id: state.task,
      group,
      task: stub,
      state,
      busy: false,
      announced: false,
      ...(byHand ? { archivedByHand: archivedDir } : {}),
    });
  }
}

/**
 * `--retry-blocked` (every blocked task in scope) or `switchyard retry <task>…` (those): each
 * gets a fresh budget and is retried for the reason it blocked. Its history stays: attempts
 * (with the catalog revision each ran on) and every decision still valid on the current
 * catalog, with the candidates it already used. Only a decision the catalog no longer
 * supports (changed revision or target) is dropped, so that stage decides again on the
 * current catalog instead of blocking as "catalog changed". A task blocked at the plan-loop
 * cap continues only when its cap now allows the reviewer's next plan.
 */
export async function prepareRetryBlocked(ctx: DispatchContext): Promise<void> {
  const chosen = ctx.options.retryTasks ? new Set(ctx.options.retryTasks) : undefined;
  for (const rt of ctx.tasks.values()) {
    const blocked = rt.state.blocked;
    if (!blocked || rt.archivedByHand) continue;
    if (chosen ? !chosen.has(rt.id) : ctx.options.taskGroup && rt.group !== ctx.options.taskGroup)
      continue;
    const state = rt.state;
    if (blocked.stage === 'plan-loop-cap') {
      const cap = rt.task.maxPlanLoops ?? DEFAULT_MAX_PLAN_LOOPS;
      const next = join(rt.task.dir, planFileName(state.planLoop + 1));
      if (state.planLoop + 1 > cap || !existsSync(next)) continue;
      delete state.blocked;
      await advancePlanLoop(ctx, rt);
      await persist(ctx, rt);
      continue;
    }
    for (const stage of ['worker', 'review', 'redteam'] as const) {
      const decision = state.decisions[stage];
      if (decision && !checkDecision(decision, ctx.catalogFacts).valid)
        delete state.decisions[stage];
    }
    delete state.blocked;
    delete state.notBefore;
    delete state.parkSpent;
    state.failures = freshFailures();
    state.selfcheckRetries = 0;
    await persist(ctx, rt);
  }
}
