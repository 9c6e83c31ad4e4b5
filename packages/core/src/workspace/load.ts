import { join, relative } from 'node:path';
import type { Problem } from '../errors.js';
import { buildTaskGraph, type TaskGraph } from '../graph/task-graph.js';
import { hasErrors, parsePlanFile } from '../task/parse-plan.js';
import { resolveDependency } from '../task/task-id.js';
import type {
  ChecklistItem,
  DefinitionOfDone,
  DependencyRef,
  TaskId,
  WriteSetEntry,
} from '../task/types.js';
import { WriteSetResolver } from '../task/write-set-path.js';
import { planFileName } from './paths.js';
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

/** Reads `agent-task/` of a workspace: scan, parse every plan, check write sets, build the graph. */
export function loadWorkspace(workspace: string): WorkspaceModel {
  const scan = scanWorkspace(workspace);
  const resolver = new WriteSetResolver(workspace);
  const tasks = scan.tasks.map((t) => loadTask(workspace, t, resolver));
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

function loadTask(workspace: string, scanned: ScannedTask, resolver: WriteSetResolver): LoadedTask {
  const planFile = relative(workspace, join(scanned.dir, 'PLAN.md')).split('\\').join('/');
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
    const file = relative(workspace, join(scanned.dir, planFileName(loop)))
      .split('\\')
      .join('/');
    const plan = parsePlanFile(join(scanned.dir, planFileName(loop)), {
      file,
      resolver,
      followUp: loop > 1,
    });
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
