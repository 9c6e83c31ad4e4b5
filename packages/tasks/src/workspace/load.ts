import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ChecklistItem,
  DefinitionOfDone,
  DependencyRef,
  ParsedPlan,
  Problem,
  TaskId,
  WriteSetEntry,
} from '@switchyard/core';
import {
  AGENT_TASK_DIR,
  ARCHIVE_DIR,
  COMPLETE_LOG,
  PLAN_FILE,
  planFileName,
  stateDir,
} from '@switchyard/core';
import { buildTaskGraph, type TaskGraph } from '../graph/task-graph.js';
import { followUpDoneProblem } from '../task/done-contract.js';
import {
  finishPlan,
  hasErrors,
  type PlanSource,
  parsePlan,
  parsePlanFile,
  readPlanSource,
  readPlanText,
} from '../task/parse-plan.js';
import { resolveDependency } from '../task/task-id.js';
import { WriteSetResolver } from '../task/write-set-path.js';
import { PlanCache } from './plan-cache.js';
import type { PlanJob } from './plan-job.js';
import { type ParallelParseOptions, PlanParsePool, parseWorkerCount } from './plan-pool.js';
import {
  type ArchivedTask,
  finishScan,
  listTaskFolders,
  readTaskFolder,
  type ScannedTask,
  scanWorkspace,
  type TaskFolderContents,
  type WorkspaceScan,
} from './scan.js';
import type { TaskJob } from './task-job.js';

/** An active task with its contract read from its plans. */
export interface LoadedTask extends ScannedTask {
  /** Workspace-relative path of `PLAN.md`. */
  planFile: string;
  /** The current plan loop (highest `PLAN-<n>.md`). */
  planLoop: number;
  route?: string;
  target?: string;
  maxPlanLoops?: number;
  /** `patch`: the task ends with its diff as a patch artifact, the source untouched. */
  apply?: 'source' | 'patch';
  /** `local`: the worker stage runs `command` (argv; `/bin/sh -c` with `shell`), no agent. */
  runner?: 'local' | 'agent';
  command?: string[];
  shell?: boolean;
  /** `complexity:` / `risk:` of `PLAN.md`: the config's `routing` turns them into a route. */
  complexity?: 'routine' | 'standard' | 'complex';
  risk?: 'low' | 'high';
  /** The review mode (`red-team`: an adversarial second review), from the config's
   * `routing.risk` for the task's risk; a plan's own review option wins when it has one. */
  review?: string;
  /** Why the task has its route (set by `applyRouting`: PLAN route, or config routing). */
  routeReason?: string;
  /** Some plan of the task says `tests: required`. */
  testsRequired?: boolean;
  /** Where the first plan saying so says it (for problems about it). */
  testsRequiredAt?: { file: string; line?: number };
  dependsOn: DependencyRef[];
  /** Union of every plan's write set: the claim is held across follow-up plans. */
  writeSet: WriteSetEntry[];
  /** PLAN.md `write_set: any`: no claim; any path of the task's worktree except `.git`. */
  writeSetAny?: boolean;
  /** Checklist of the current plan. */
  checklist: ChecklistItem[];
  /** Definition of Done of the current plan. */
  definitionOfDone?: DefinitionOfDone;
  /** Problems of this task's plans (and graph problems about it). */
  problems: Problem[];
  /** The text each plan loop was parsed from (`loadWorkspace` without the cache): what the
   * dispatcher admits, so the plan it runs is exactly the plan it read. */
  planTexts?: { loop: number; text: string }[];
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
  /**
   * The clock (ms since the epoch) the cache compares file change times with: a plan changed
   * in the last 100 ms of it is not cached. Defaults to `Date.now`; tests inject their own.
   */
  now?: () => number;
}

/** Reads `agent-task/` of a workspace: scan, parse every plan, check write sets, build the graph. */
export function loadWorkspace(
  workspace: string,
  options: LoadWorkspaceOptions = {},
): WorkspaceModel {
  const cache = options.cache
    ? new PlanCache(stateDir(workspace), { now: options.now })
    : undefined;
  const model = loadScanned(workspace, scanWorkspace(workspace), cache);
  cache?.save();
  return model;
}

/**
 * Reads one active task (its plans, write sets and folder problems) without the rest of the
 * workspace: what a new plan loop needs, in time independent of the workspace size.
 * Dependencies come from `PLAN.md`, which a plan loop does not change, so graph problems
 * (cycles, unknown tasks) are not re-checked here. Undefined when the folder is gone.
 */
export function loadTask(workspace: string, id: TaskId): LoadedTask | undefined {
  const [group = '', name = ''] = id.split('/');
  const dir = join(workspace, AGENT_TASK_DIR, group, name);
  if (!group || !name || !existsSync(dir)) return undefined;
  const archivedDir = join(workspace, AGENT_TASK_DIR, ARCHIVE_DIR, group, name);
  const archived = new Map<TaskId, ArchivedTask>();
  if (existsSync(archivedDir)) {
    archived.set(id, {
      id,
      dir: archivedDir,
      complete: existsSync(join(archivedDir, COMPLETE_LOG)),
    });
  }
  const scan = finishScan(
    { folders: [{ group, name, dir }], archived, groups: [group], problems: [] },
    [readTaskFolder(dir)],
  );
  const scanned = scan.tasks[0] as ScannedTask;
  const resolver = new WriteSetResolver(workspace);
  const task = assembleTask(
    scanned,
    planJobsOf(scanned).map((job) => readPlan(job, resolver)),
  );
  for (const problem of scan.problems) {
    task.problems.push(problem);
    if (problem.severity !== 'warning') task.valid = false;
  }
  return task;
}

/** Parses the plans of a scan on this thread and builds the model (the cache is not saved). */
function loadScanned(workspace: string, scan: WorkspaceScan, cache?: PlanCache): WorkspaceModel {
  const resolver = new WriteSetResolver(workspace);
  const tasks = scan.tasks.map((t) =>
    assembleTask(
      t,
      planJobsOf(t).map((job) => readPlan(job, resolver, cache)),
    ),
  );
  return finishModel(workspace, scan, resolver, tasks);
}

/** Options of {@link loadWorkspaceAsync}. */
export interface LoadWorkspaceAsyncOptions extends LoadWorkspaceOptions {
  /** Worker threads for large workspaces (by default from 500 task folders). */
  parallel?: ParallelParseOptions;
}

/** A model from {@link loadWorkspaceAsync}. */
export interface LoadedWorkspaceModel extends WorkspaceModel {
  /**
   * Settles when the plan cache is written (it is written in the background so the caller
   * can go on; it never rejects: the cache is optional). Await it before exiting.
   */
  cacheWritten: Promise<void>;
}

/**
 * {@link loadWorkspace} for large workspaces: plans that are not cached are parsed in
 * worker threads. The model is the same as `loadWorkspace` gives (results are merged in
 * scan order); small workspaces are read on the calling thread.
 */
export async function loadWorkspaceAsync(
  workspace: string,
  options: LoadWorkspaceAsyncOptions = {},
): Promise<LoadedWorkspaceModel> {
  const listing = listTaskFolders(workspace);
  const workers = parseWorkerCount(listing.folders.length, options.parallel);
  const pool = workers > 0 ? new PlanParsePool(workers) : undefined;
  // With threads, plans.json is read while they work (they only need plan-keys.json).
  const cache = options.cache
    ? new PlanCache(stateDir(workspace), { deferLoad: !!pool, now: options.now })
    : undefined;
  if (!pool) {
    const scan = finishScan(
      listing,
      listing.folders.map((f) => readTaskFolder(f.dir)),
    );
    const model = loadScanned(workspace, scan, cache);
    return { ...model, cacheWritten: cache ? cache.saveAsync() : Promise.resolve() };
  }
  // Threads read the task folders, take plan identities and parse what the cache lacks;
  // this thread merges results by folder index as they arrive.
  try {
    const resolver = new WriteSetResolver(workspace);
    const cachedKeys = cache ? PlanCache.readKeysByFolder(stateDir(workspace)) : undefined;
    const jobs: TaskJob[] = listing.folders.map((f) => {
      const rel = `${AGENT_TASK_DIR}/${f.group}/${f.name}`;
      const cached = cachedKeys?.get(rel);
      return cached ? { dir: f.dir, rel, cached } : { dir: f.dir, rel };
    });
    const contents: TaskFolderContents[] = new Array(jobs.length);
    const plans: (ParsedPlan | undefined)[][] = new Array(jobs.length);
    // Results are handled once this thread is free again, so after the cache is read.
    const parsed = pool.parse(jobs, (i, { planLoops, reviewLoops, plans: results }) => {
      const { rel } = jobs[i] as TaskJob;
      contents[i] = { planLoops, reviewLoops };
      plans[i] = results.map(({ key, json, hit }, k) => {
        const file = `${rel}/${planFileName(planLoops[k] as number)}`;
        if (hit && key !== undefined) {
          const source = cache?.get(file, key);
          return source && finishPlan(source, resolver);
        }
        if (json === undefined) return undefined; // unreadable: readPlan below reports it
        const source = JSON.parse(json) as PlanSource;
        if (cache && key !== undefined) cache.set(file, key, source, json);
        return finishPlan(source, resolver);
      });
    });
    cache?.load();
    await parsed;
    const scan = finishScan(listing, contents);
    const tasks = scan.tasks.map((t, i) =>
      assembleTask(
        t,
        planJobsOf(t).map((job, k) => plans[i]?.[k] ?? readPlan(job, resolver, cache)),
      ),
    );
    const cacheWritten = cache ? cache.saveAsync() : Promise.resolve();
    return { ...finishModel(workspace, scan, resolver, tasks), cacheWritten };
  } finally {
    await pool.close();
  }
}

/** The plan files of a task, in loop order. */
function planJobsOf(scanned: ScannedTask): PlanJob[] {
  // Workspace-relative names built from the scanned names (path.relative per plan is slow).
  const taskRel = `${AGENT_TASK_DIR}/${scanned.group}/${scanned.name}`;
  return scanned.planLoops.map((loop) => ({
    path: join(scanned.dir, planFileName(loop)),
    file: `${taskRel}/${planFileName(loop)}`,
    followUp: loop > 1,
  }));
}

/** Attaches scan and graph problems to their tasks and builds the model. */
function finishModel(
  workspace: string,
  scan: WorkspaceScan,
  resolver: WriteSetResolver,
  tasks: LoadedTask[],
): WorkspaceModel {
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

/** The text each plan was parsed from, when it was read here (not from the cache). */
const textOf = new WeakMap<ParsedPlan, string>();

function readPlan(job: PlanJob, resolver: WriteSetResolver, cache?: PlanCache): ParsedPlan {
  const { path, file, followUp } = job;
  const key = cache ? PlanCache.keyOf(path) : undefined;
  if (!cache || key === undefined) {
    const read = readPlanText(path, file);
    if ('problem' in read) return parsePlanFile(path, { file, resolver, followUp }); // reports it
    const plan = parsePlan(read.text, { file, resolver, followUp });
    textOf.set(plan, read.text);
    return plan;
  }
  let source = cache.get(file, key);
  if (!source) {
    const read = readPlanText(path, file);
    if ('problem' in read) return parsePlanFile(path, { file, resolver, followUp }); // reports it
    source = readPlanSource(read.text, { file, followUp });
    cache.set(file, key, source);
  }
  return finishPlan(source, resolver);
}

/**
 * A task built from plan texts the caller holds (the dispatcher's record of the plans it
 * admitted) instead of its files: the same contract `loadTask` reads, parsed and checked the
 * same way (write-set paths against the workspace as it is now). Graph problems (cycles,
 * unknown dependencies) are not checked here.
 */
export function taskFromPlanTexts(
  workspace: string,
  id: TaskId,
  texts: readonly { loop: number; text: string }[],
): LoadedTask {
  const [group = '', name = ''] = id.split('/');
  const scanned: ScannedTask = {
    id,
    group,
    name,
    dir: join(workspace, AGENT_TASK_DIR, group, name),
    planLoops: texts.map((t) => t.loop),
    reviewLoops: [],
  };
  const resolver = new WriteSetResolver(workspace);
  const task = assembleTask(
    scanned,
    texts.map(({ loop, text }) =>
      parsePlan(text, {
        file: `${AGENT_TASK_DIR}/${group}/${name}/${planFileName(loop)}`,
        resolver,
        followUp: loop > 1,
      }),
    ),
  );
  task.planTexts = texts.map((t) => ({ ...t }));
  return task;
}

/** Builds a task from its parsed plans (one per plan loop, in loop order). */
function assembleTask(scanned: ScannedTask, plans: ParsedPlan[]): LoadedTask {
  const planFile = `${AGENT_TASK_DIR}/${scanned.group}/${scanned.name}/${PLAN_FILE}`;
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
  scanned.planLoops.forEach((loop, n) => {
    const plan = plans[n] as ParsedPlan;
    const { file } = plan;
    task.problems.push(...plan.problems);
    const fm = plan.frontMatter;
    if (fm.tests === 'required') {
      task.testsRequired = true;
      task.testsRequiredAt ??= { file, ...(fm.lines.tests ? { line: fm.lines.tests } : {}) };
    }
    if (loop === 1) {
      task.route = fm.route;
      task.target = fm.target;
      if (fm.complexity) task.complexity = fm.complexity;
      if (fm.risk) task.risk = fm.risk;
      // The plan's own review mode wins over the one `routing.risk` gives (route-task.ts).
      if (fm.review) task.review = fm.review;
      task.maxPlanLoops = fm.maxPlanLoops;
      if (fm.apply !== undefined) task.apply = fm.apply;
      if (fm.runner !== undefined) task.runner = fm.runner;
      if (fm.command !== undefined) task.command = fm.command;
      if (fm.shell !== undefined) task.shell = fm.shell;
      if (fm.writeSet === 'any') task.writeSetAny = true;
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
      for (const key of ['route', 'target', 'complexity', 'risk', 'review'] as const)
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
    if (loop === 1 && plan.definitionOfDone) task.definitionOfDone = plan.definitionOfDone;
    if (loop > 1) {
      // The gate runs PLAN.md's command only; a follow-up plan cannot change or add one.
      const doneProblem = followUpDoneProblem(task.definitionOfDone, plan.definitionOfDone, file);
      if (doneProblem) task.problems.push(doneProblem);
    }
    if (loop === task.planLoop) task.checklist = plan.checklist;
  });
  const texts = scanned.planLoops.map((loop, n) => ({ loop, text: textOf.get(plans[n]!) }));
  if (texts.length > 0 && texts.every((t) => t.text !== undefined))
    task.planTexts = texts as { loop: number; text: string }[];
  if (task.planLoops.length === 0) task.valid = false;
  if (hasErrors(task.problems)) task.valid = false;
  return task;
}
