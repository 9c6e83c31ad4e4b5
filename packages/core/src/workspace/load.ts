import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.js';
import { buildTaskGraph, type TaskGraph } from '../graph/task-graph.js';
import { finishPlan, hasErrors, parsePlanFile, readPlanSource } from '../task/parse-plan.js';
import { resolveDependency } from '../task/task-id.js';
import type {
  ChecklistItem,
  DefinitionOfDone,
  DependencyRef,
  ParsedPlan,
  TaskId,
  WriteSetEntry,
} from '../task/types.js';
import { WriteSetResolver } from '../task/write-set-path.js';
import { AGENT_TASK_DIR, PLAN_FILE, planFileName, stateDir } from './paths.js';
import { PlanCache } from './plan-cache.js';
import { type ArchivedTask, type ScannedTask, scanWorkspace } from './scan.js';

/** An active task with its contract read from its plans. */
export interface LoadedTask extends ScannedTask {
  /** Workspace-relative path of `PLAN.md`. */
  planFile: string;
  /** The current plan loop (highest `PLAN-<n>.md`). */
  planLoop: number;
  route?: string;
  target?: string;
  maxPlanLoops?: number;
  dependsOn: DependencyRef[];
  /** Union of every plan's write set: the claim is held across follow-up plans. */
  writeSet: WriteSetEntry[];
  /** Checklist of the current plan. */
  checklist: ChecklistItem[];
  /** Definition of Done of the current plan. */
  definitionOfDone?: DefinitionOfDone;
  /** Problems of this task's plans (and graph problems about it). */
  problems: Problem[];
  /** False when any error makes the task impossible to run. */
  valid: boolean;
}

/** Every task of a workspace with its graph; the input of admission and the dry run. */
export interface WorkspaceModel {
  workspace: string;
  workspaceReal: string;
  tasks: LoadedTask[];
  archived: Map<TaskId, ArchivedTask>;
  groups: string[];
  graph: TaskGraph;
  /** Workspace-level problems (scan, graph); task problems are on each task too. */
  problems: Problem[];
}

/** Options of {@link loadWorkspace}. */
export interface LoadWorkspaceOptions {
  /**
   * Reuse parsed plans from `agent-task/.switchyard/cache/plans.json` when a file's size,
   * mtime, ctime and inode are unchanged (write-set paths are always re-checked).
   */
  cache?: boolean;
}

/** Reads `agent-task/` of a workspace: scan, parse every plan, check write sets, build the graph. */
export function loadWorkspace(
  workspace: string,
  options: LoadWorkspaceOptions = {},
): WorkspaceModel {
  const scan = scanWorkspace(workspace);
  const resolver = new WriteSetResolver(workspace);
  const cache = options.cache ? new PlanCache(stateDir(workspace)) : undefined;
  const tasks = scan.tasks.map((t) => loadTask(t, resolver, cache));
  cache?.save();
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const byDir = new Map(tasks.map((t) => [t.dir, t]));
  for (const problem of scan.problems) {
    const owner = byDir.get(problem.file ?? '');
    if (owner) {
      owner.problems.push(problem);
      if (problem.severity !== 'warning') owner.valid = false;
    }
  }
  const graph = buildTaskGraph(
    tasks.map((t) => ({ id: t.id, file: t.planFile, dependsOn: t.dependsOn })),
    new Set(scan.archived.keys()),
  );
  for (const [id, problems] of graph.problemsByTask) {
    const task = byId.get(id);
    if (task) {
      task.problems.push(...problems);
      task.valid = false;
    }
  }
  return {
    workspace,
    workspaceReal: resolver.workspaceReal,
    tasks,
    archived: scan.archived,
    groups: scan.groups,
    graph,
    problems: [...scan.problems, ...graph.problems],
  };
}

function readPlan(
  path: string,
  file: string,
  followUp: boolean,
  resolver: WriteSetResolver,
  cache?: PlanCache,
): ParsedPlan {
  const key = cache ? PlanCache.keyOf(path) : undefined;
  if (!cache || key === undefined) return parsePlanFile(path, { file, resolver, followUp });
  let source = cache.get(file, key);
  if (!source) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return parsePlanFile(path, { file, resolver, followUp }); // reports the read error
    }
    source = readPlanSource(text, { file, followUp });
    cache.set(file, key, source);
  }
  return finishPlan(source, resolver);
}

function loadTask(
  scanned: ScannedTask,
  resolver: WriteSetResolver,
  cache?: PlanCache,
): LoadedTask {
  // Workspace-relative names built from the scanned names (path.relative per plan is slow).
  const taskRel = `${AGENT_TASK_DIR}/${scanned.group}/${scanned.name}`;
  const planFile = `${taskRel}/${PLAN_FILE}`;
  const task: LoadedTask = {
    ...scanned,
    planFile,
    planLoop: scanned.planLoops[scanned.planLoops.length - 1] ?? 1,
    dependsOn: [],
    writeSet: [],
    checklist: [],
    problems: [],
    valid: true,
  };
  const paths = new Set<string>();
  for (const loop of scanned.planLoops) {
    const file = `${taskRel}/${planFileName(loop)}`;
    const plan = readPlan(join(scanned.dir, planFileName(loop)), file, loop > 1, resolver, cache);
    task.problems.push(...plan.problems);
    const fm = plan.frontMatter;
    if (loop === 1) {
      task.route = fm.route;
      task.target = fm.target;
      task.maxPlanLoops = fm.maxPlanLoops;
      task.dependsOn = fm.dependsOn.flatMap((d) => {
        const id = resolveDependency(d.raw, scanned.group);
        if (id) return [{ raw: d.raw, id, line: d.line }];
        task.problems.push({
          code: 'SY_PLAN_INVALID',
          message: `depends_on entry "${d.raw}" is not "task" or "group/task"`,
          file,
          line: d.line,
          hint: 'write a task of this group as `task`, of another group as `group/task`',
          severity: 'error',
        });
        return [];
      });
    } else {
      for (const key of ['route', 'target'] as const)
        if (fm[key] !== undefined && fm[key] !== task[key])
          task.problems.push({
            code: 'SY_PLAN_INVALID',
            message: `${key} "${fm[key]}" differs from PLAN.md ("${task[key] ?? 'none'}")`,
            file,
            line: fm.lines[key],
            hint: `a task keeps one ${key}; remove it from the follow-up plan`,
            severity: 'error',
          });
    }
    for (const entry of plan.writeSet) {
      if (paths.has(entry.path)) continue;
      paths.add(entry.path);
      task.writeSet.push(entry);
    }
    if (loop === task.planLoop) {
      task.checklist = plan.checklist;
      if (plan.definitionOfDone) task.definitionOfDone = plan.definitionOfDone;
    }
  }
  if (task.planLoops.length === 0) task.valid = false;
  if (hasErrors(task.problems)) task.valid = false;
  return task;
}
