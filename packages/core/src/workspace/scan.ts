import { type Dirent, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.js';
import { isReservedGroupName, isValidName, taskId } from '../task/task-id.js';
import type { TaskId } from '../task/types.js';
import { AGENT_TASK_DIR, ARCHIVE_DIR, COMPLETE_LOG, planLoopOf, reviewLoopOf } from './paths.js';

/** An active task folder `agent-task/<group>/<task>/`. */
export interface ScannedTask {
  id: TaskId;
  group: string;
  name: string;
  /** Absolute folder path. */
  dir: string;
  /** Plan loops present, ascending (1 = PLAN.md). */
  planLoops: number[];
  /** Review loops present, ascending (`CODE_REVIEW-<n>.md`). */
  reviewLoops: number[];
}

/** A task folder under `agent-task/archive/`. Only one with `complete.log` counts as complete. */
export interface ArchivedTask {
  id: TaskId;
  dir: string;
  complete: boolean;
}

/** Everything found under `agent-task/`, over all groups. */
export interface WorkspaceScan {
  tasks: ScannedTask[];
  archived: Map<TaskId, ArchivedTask>;
  /** Active group names, sorted. */
  groups: string[];
  problems: Problem[];
}

const dirs = (path: string): Dirent[] => {
  try {
    return readdirSync(path, { withFileTypes: true }).filter((d) => d.isDirectory());
  } catch {
    return [];
  }
};

/** Scans `<workspace>/agent-task/` (all groups, and the archive). Sorted, deterministic. */
export function scanWorkspace(workspace: string): WorkspaceScan {
  const root = join(workspace, AGENT_TASK_DIR);
  const scan: WorkspaceScan = { tasks: [], archived: new Map(), groups: [], problems: [] };
  if (!existsSync(root)) {
    scan.problems.push({
      code: 'SY_PLAN_INVALID',
      message: `no ${AGENT_TASK_DIR}/ folder in ${workspace}`,
      file: root,
      hint: 'create agent-task/<group>/<task>/PLAN.md, or pass --workspace',
      severity: 'error',
    });
    return scan;
  }
  for (const group of dirs(join(root, ARCHIVE_DIR))) {
    for (const task of dirs(join(root, ARCHIVE_DIR, group.name))) {
      const id = taskId(group.name, task.name);
      const dir = join(root, ARCHIVE_DIR, group.name, task.name);
      const complete = existsSync(join(dir, COMPLETE_LOG));
      scan.archived.set(id, { id, dir, complete });
      if (!complete)
        scan.problems.push({
          code: 'SY_PLAN_INVALID',
          message: `archived task ${id} has no ${COMPLETE_LOG}; it does not count as complete`,
          file: dir,
          hint: 'restore the task to agent-task/<group>/<task>/ or add its complete.log',
          severity: 'warning',
        });
    }
  }
  const groups = dirs(root)
    .map((d) => d.name)
    .filter((g) => !isReservedGroupName(g) && isValidName(g))
    .sort();
  for (const group of groups) {
    scan.groups.push(group);
    const names = dirs(join(root, group))
      .map((d) => d.name)
      .filter((n) => !n.startsWith('.'))
      .sort();
    for (const name of names) scan.tasks.push(scanTask(root, group, name, scan));
  }
  return scan;
}

/**
 * Roughly how many task folders a workspace has (one listing per group, no per-task reads):
 * enough to decide early whether parsing is worth spreading over threads.
 */
export function countTaskFolders(workspace: string): number {
  const root = join(workspace, AGENT_TASK_DIR);
  let count = 0;
  for (const group of dirs(root))
    if (!isReservedGroupName(group.name)) count += dirs(join(root, group.name)).length;
  return count;
}

function scanTask(root: string, group: string, name: string, scan: WorkspaceScan): ScannedTask {
  const dir = join(root, group, name);
  const task: ScannedTask = {
    id: taskId(group, name),
    group,
    name,
    dir,
    planLoops: [],
    reviewLoops: [],
  };
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    // an unreadable folder shows up as "no PLAN.md" below
  }
  for (const entry of entries) {
    const plan = planLoopOf(entry);
    if (plan !== undefined) task.planLoops.push(plan);
    const review = reviewLoopOf(entry);
    if (review !== undefined) task.reviewLoops.push(review);
  }
  task.planLoops.sort((a, b) => a - b);
  task.reviewLoops.sort((a, b) => a - b);
  if (task.planLoops[0] !== 1)
    scan.problems.push({
      code: 'SY_PLAN_INVALID',
      message: `task ${task.id} has no PLAN.md`,
      file: dir,
      hint: 'write agent-task/<group>/<task>/PLAN.md, or remove the folder',
      severity: 'error',
    });
  if (scan.archived.has(task.id))
    scan.problems.push({
      code: 'SY_PLAN_INVALID',
      message: `task ${task.id} is both active and archived`,
      file: dir,
      hint: 'remove one of the two folders',
      severity: 'error',
    });
  return task;
}
