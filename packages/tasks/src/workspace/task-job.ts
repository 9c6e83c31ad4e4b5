import { join } from 'node:path';
import { planFileName } from '@switchyard/core';
import { fileIdentity } from './file-identity.js';
import { type PlanJob, type PlanJobResult, runPlanJob } from './plan-job.js';
import { readTaskFolder, type TaskFolderContents } from './scan.js';

/** One task folder for a pool thread: find its plans, take their identities, parse misses. */
export interface TaskJob {
  /** Absolute folder path. */
  dir: string;
  /** Workspace-relative folder, e.g. `agent-task/api/add-flag`. */
  rel: string;
  /** Identity the plan cache holds per plan file name (`PLAN.md` -> key), if any. */
  cached?: Record<string, string>;
}

/** A plan of a task job: `hit` when its identity equals the cached one (not parsed then). */
export interface TaskPlanResult extends PlanJobResult {
  hit?: true;
}

/** What a task job found: the folder's loops and one result per plan loop. */
export interface TaskJobResult extends TaskFolderContents {
  plans: TaskPlanResult[];
}

/** A plan that needs parsing: its job, and where its result goes. */
export interface PendingParse {
  job: PlanJob;
  result: TaskPlanResult;
}

/**
 * Reads a task folder and the identity of each plan; plans whose identity matches the
 * cache are hits, the others are returned in `pending` for the caller to parse.
 */
export function inspectTaskFolder(job: TaskJob): {
  result: TaskJobResult;
  pending: PendingParse[];
} {
  const contents = readTaskFolder(job.dir);
  const pending: PendingParse[] = [];
  const plans = contents.planLoops.map((loop): TaskPlanResult => {
    const name = planFileName(loop);
    const path = join(job.dir, name);
    const key = fileIdentity(path);
    if (key !== undefined && job.cached?.[name] === key) return { key, hit: true };
    const result: TaskPlanResult = {};
    pending.push({ job: { path, file: `${job.rel}/${name}`, followUp: loop > 1 }, result });
    return result;
  });
  return { result: { ...contents, plans }, pending };
}

/** Runs a task job on this thread: inspects the folder and parses the plans the cache lacks. */
export function runTaskJob(job: TaskJob): TaskJobResult {
  const { result, pending } = inspectTaskFolder(job);
  for (const plan of pending) Object.assign(plan.result, runPlanJob(plan.job));
  return result;
}
