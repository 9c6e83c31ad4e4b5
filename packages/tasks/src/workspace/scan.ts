import { type Dirent, existsSync, lstatSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import type { Problem, TaskId } from '@switchyard/core';
import {
  AGENT_TASK_DIR,
  ARCHIVE_DIR,
  COMPLETE_LOG,
  PLAN_FILE,
  planLoopOf,
  reviewLoopOf,
} from '@switchyard/core';
import { isReservedGroupName, isValidName, taskId } from '../task/task-id.js';

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

const entries = (path: string): Dirent[] => {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
};

/** The problem of a symlinked folder where switchyard expects a real one (never followed). */
function symlinkedFolder(path: string): Problem {
  return {
    code: 'SY_UNSAFE_PATH',
    message: `${path} is a symlink; switchyard neither follows nor skips symlinked task folders`,
    file: path,
    hint: 'replace the symlink by the real folder (move it here), then run again',
    severity: 'error',
  };
}

/**
 * The problem of a plan file directly in `agent-task/` or in a group folder: no task folder
 * holds it, so no run would ever see it (a run that finds nothing else to do ends "done").
 */
function strayPlan(path: string, group: string | undefined): Problem {
  return {
    code: 'SY_PLAN_INVALID',
    message: `this plan is not in a task folder, so no run sees it (a task's plan is ${AGENT_TASK_DIR}/<group>/<task>/${PLAN_FILE})`,
    file: path,
    hint: `move it into a task folder of its own, e.g. ${AGENT_TASK_DIR}/${group ?? '<group>'}/<task>/${PLAN_FILE}`,
    severity: 'error',
  };
}

/**
 * The stray-plan problem of one plan file, judged from where it lies (the scan's rule, for a
 * check of a single file such as `validate-plan`): a plan file directly in `agent-task/` or
 * in a group folder is one no run sees. Undefined for a file anywhere else.
 */
export function strayPlanProblem(workspace: string, file: string): Problem | undefined {
  if (planLoopOf(basename(file)) === undefined) return undefined;
  const rel = relative(join(workspace, AGENT_TASK_DIR), file);
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const parts = rel.split(sep);
  if (parts.length === 1) return strayPlan(file, undefined);
  const group = parts[0] as string;
  if (parts.length === 2 && !isReservedGroupName(group) && isValidName(group))
    return strayPlan(file, group);
  return undefined;
}

/**
 * The sub-folders of `path`; symlinks among them are reported, not followed, and so are plan
 * files lying in `path` itself when `strayPlansOf` names the group they would belong to.
 */
function dirsReporting(
  path: string,
  problems: Problem[],
  keep = (_: string) => true,
  strayPlansOf?: { group?: string },
): Dirent[] {
  const out: Dirent[] = [];
  for (const d of entries(path)) {
    if (d.isDirectory()) out.push(d);
    else if (d.isSymbolicLink() && keep(d.name)) problems.push(symlinkedFolder(join(path, d.name)));
    else if (strayPlansOf && d.isFile() && planLoopOf(d.name) !== undefined)
      problems.push(strayPlan(join(path, d.name), strayPlansOf.group));
  }
  return out;
}

/** Scans `<workspace>/agent-task/` (all groups, and the archive). Sorted, deterministic. */
export function scanWorkspace(workspace: string): WorkspaceScan {
  const listing = listTaskFolders(workspace);
  return finishScan(
    listing,
    listing.folders.map((f) => readTaskFolder(f.dir)),
  );
}

/** A task folder found by {@link listTaskFolders} (its contents not read yet). */
export interface TaskFolder {
  group: string;
  name: string;
  /** Absolute folder path. */
  dir: string;
}

/** The groups and task folders of a workspace, and its archive; one listing per group. */
export interface TaskFolderListing {
  folders: TaskFolder[];
  archived: Map<TaskId, ArchivedTask>;
  groups: string[];
  /** Problems found so far (no agent-task/, archived tasks without complete.log). */
  problems: Problem[];
}

/** Lists the archive, the groups and their task folders, sorted; reads no task folder. */
export function listTaskFolders(workspace: string): TaskFolderListing {
  const root = join(workspace, AGENT_TASK_DIR);
  const listing: TaskFolderListing = {
    folders: [],
    archived: new Map(),
    groups: [],
    problems: [],
  };
  if (lstatSync(root, { throwIfNoEntry: false })?.isSymbolicLink()) {
    listing.problems.push(symlinkedFolder(root));
    return listing;
  }
  if (!existsSync(root)) {
    listing.problems.push({
      code: 'SY_PLAN_INVALID',
      message: `no ${AGENT_TASK_DIR}/ folder in ${workspace}`,
      file: root,
      hint: 'create agent-task/<group>/<task>/PLAN.md, or pass --workspace',
      severity: 'error',
    });
    return listing;
  }
  const archive = join(root, ARCHIVE_DIR);
  if (lstatSync(archive, { throwIfNoEntry: false })?.isSymbolicLink())
    listing.problems.push(symlinkedFolder(archive));
  for (const group of dirsReporting(archive, listing.problems)) {
    for (const task of dirsReporting(join(archive, group.name), listing.problems)) {
      const id = taskId(group.name, task.name);
      const dir = join(root, ARCHIVE_DIR, group.name, task.name);
      const complete = existsSync(join(dir, COMPLETE_LOG));
      listing.archived.set(id, { id, dir, complete });
      if (!complete)
        listing.problems.push({
          code: 'SY_PLAN_INVALID',
          message: `archived task ${id} has no ${COMPLETE_LOG}; it does not count as complete`,
          file: dir,
          hint: 'restore the task to agent-task/<group>/<task>/ or add its complete.log',
          severity: 'warning',
        });
    }
  }
  const groups = dirsReporting(
    root,
    listing.problems,
    (g) => !isReservedGroupName(g) && isValidName(g),
    {},
  )
    .map((d) => d.name)
    .filter((g) => !isReservedGroupName(g) && isValidName(g))
    .sort();
  for (const group of groups) {
    listing.groups.push(group);
    const names = dirsReporting(join(root, group), listing.problems, (n) => !n.startsWith('.'), {
      group,
    })
      .map((d) => d.name)
      .filter((n) => !n.startsWith('.'))
      .sort();
    for (const name of names) listing.folders.push({ group, name, dir: join(root, group, name) });
  }
  return listing;
}

/** The plan and review loops present in a task folder, ascending. */
export interface TaskFolderContents {
  planLoops: number[];
  reviewLoops: number[];
}

/** Reads one task folder (an unreadable one has no plans, reported as "no PLAN.md"). */
export function readTaskFolder(dir: string): TaskFolderContents {
  const contents: TaskFolderContents = { planLoops: [], reviewLoops: [] };
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    // an unreadable folder shows up as "no PLAN.md"
  }
  for (const entry of entries) {
    const plan = planLoopOf(entry);
    if (plan !== undefined) contents.planLoops.push(plan);
    const review = reviewLoopOf(entry);
    if (review !== undefined) contents.reviewLoops.push(review);
  }
  contents.planLoops.sort((a, b) => a - b);
  contents.reviewLoops.sort((a, b) => a - b);
  return contents;
}

/** The scan from a listing and the contents of each of its folders (same order). */
export function finishScan(
  listing: TaskFolderListing,
  contents: readonly TaskFolderContents[],
): WorkspaceScan {
  const scan: WorkspaceScan = {
    tasks: [],
    archived: listing.archived,
    groups: listing.groups,
    problems: [...listing.problems],
  };
  listing.folders.forEach((folder, i) => {
    const { planLoops, reviewLoops } = contents[i] as TaskFolderContents;
    const task: ScannedTask = {
      id: taskId(folder.group, folder.name),
      group: folder.group,
      name: folder.name,
      dir: folder.dir,
      planLoops,
      reviewLoops,
    };
    if (task.planLoops[0] !== 1)
      scan.problems.push({
        code: 'SY_PLAN_INVALID',
        message: `task ${task.id} has no PLAN.md`,
        file: folder.dir,
        hint: 'write agent-task/<group>/<task>/PLAN.md, or remove the folder',
        severity: 'error',
      });
    if (scan.archived.has(task.id))
      scan.problems.push({
        code: 'SY_PLAN_INVALID',
        message: `task ${task.id} is both active and archived`,
        file: folder.dir,
        hint: 'remove one of the two folders',
        severity: 'error',
      });
    scan.tasks.push(task);
  });
  return scan;
}
