import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyRouting } from '@switchyard/catalog';
import {
  archivedTaskDir,
  freshFailures,
  newTaskState,
  planFileName,
  taskDir,
} from '@switchyard/core';
import type { LoadedTask, WorkspaceModel } from '@switchyard/tasks';
import { DECISION_KEYS } from '../../lifecycle/index.js';
import { checkDecision } from '../../selection/decide.js';
import { readCompletion } from '../checks/completion-record.js';
import { taskStageGates } from '../checks/stage-project-gates.js';
import { persist } from '../context.js';
import { readmitPlan, useAdmittedPlan } from '../corrections/admitted-plan.js';
import { advancePlanLoop } from '../corrections/plan-loop.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { DEFAULT_MAX_PLAN_LOOPS } from './stage-review.js';

/**
 * One runtime per active task (every group: other groups' claims and dependencies count
 * even under `--task-group`), with its persisted state or a fresh one. A task archived by a
 * previous dispatcher that died before marking it done is picked up to finish its archive.
 */
export async function buildRuntimes(ctx: DispatchContext, model: WorkspaceModel): Promise<void> {
  const stored = new Map((await ctx.store.tasks.list()).map((s) => [s.value.task, s]));
  for (const files of model.tasks) {
    applyRouting(files, ctx.options.routing);
    const entry = stored.get(files.id);
    let state = entry?.value ?? newTaskState(files.id);
    // An active folder whose state says done was put back by hand: it runs again from scratch.
    // (On a shared backlog, the folder of a task another machine archived: it stays done.)
    if (state.phase === 'done' && !ctx.options.backlog) state = newTaskState(files.id);
    if (state.attempts.length === 0 && state.planLoop < files.planLoop)
      state.planLoop = files.planLoop;
    const rt: TaskRuntime = {
      id: files.id,
      group: files.group,
      task: files,
      files,
      state,
      version: entry?.version ?? 0,
      busy: false,
      announced: false,
    };
    // The plan it runs: the one admitted before (see ./admitted-plan.ts), else the files now.
    if (state.plan && !state.plan.readmit) useAdmittedPlan(ctx, rt, files);
    else if (!readmitPlan(ctx, rt, files)) delete state.plan;
    rt.hasProjectGates = taskStageGates(ctx.options, rt.task).length > 0;
    ctx.tasks.set(files.id, rt);
  }
  for (const { value: state, version } of stored.values()) {
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
      version,
      busy: false,
      announced: false,
      ...(byHand ? { archivedByHand: archivedDir } : {}),
    });
  }
  await readCompletion(
    ctx,
    model,
    [...stored.values()].map((s) => s.value),
  );
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
    // A task named by `switchyard retry` that is not blocked: its plan files are admitted again.
    if (!blocked && chosen?.has(rt.id) && !rt.archivedByHand && readmitPlan(ctx, rt, rt.files)) {
      await persist(ctx, rt);
      continue;
    }
    if (!blocked || rt.archivedByHand) continue;
    if (chosen ? !chosen.has(rt.id) : ctx.options.taskGroup && rt.group !== ctx.options.taskGroup)
      continue;
    await retryBlockedTask(ctx, rt);
  }
}

/**
 * Retries one blocked task (the rule above; also a retry asked from the monitor during the
 * run). False when it stays blocked: at its plan-loop cap with no next plan the cap allows.
 */
export async function retryBlockedTask(ctx: DispatchContext, rt: TaskRuntime): Promise<boolean> {
  const blocked = rt.state.blocked;
  if (!blocked) return false;
  const state = rt.state;
  // A human retries: the plan files as they are now are admitted again (a fix made to them).
  readmitPlan(ctx, rt, rt.files);
  if (blocked.stage === 'plan-loop-cap') {
    const cap = rt.task.maxPlanLoops ?? DEFAULT_MAX_PLAN_LOOPS;
    const next = join(rt.task.dir, planFileName(state.planLoop + 1));
    if (state.planLoop + 1 > cap || !existsSync(next)) return false;
    delete state.blocked;
    await advancePlanLoop(ctx, rt);
    await persist(ctx, rt);
    return true;
  }
  for (const stage of DECISION_KEYS) {
    const decision = state.decisions[stage];
    if (decision && !checkDecision(decision, ctx.catalogFacts).valid) delete state.decisions[stage];
  }
  delete state.blocked;
  delete state.notBefore;
  delete state.parkSpent;
  state.failures = freshFailures();
  state.selfcheckRetries = 0;
  await persist(ctx, rt);
  return true;
}
