import { basename, extname } from 'node:path';
import type { Catalog } from '@switchyard/catalog';
import { DEFAULT_ROUTING, type RoutingConfig, routeTask } from '@switchyard/catalog';
import type { DoneAssertion, Problem, RouteId } from '@switchyard/core';
import { knownKeysAt, unknownKeyHint } from '@switchyard/utils';
import type { Document, LineCounter } from 'yaml';
import type { z } from 'zod';
import { splitArgv } from '../task/argv.js';
import { parseAssertion } from '../task/definition-of-done.js';
import { yamlModule } from '../task/front-matter-pairs.js';
import { isReservedGroupName, isValidName } from '../task/task-id.js';
import { MAX_YAML_NESTING, yamlNestingLine } from '../task/yaml-nesting.js';
import { resolveBackend } from './plan-routing.js';
import {
  type OrchestratePlan,
  type OrchestratePlanTask,
  orchestratePlanSchema,
  type PlanRunner,
  planTaskSchema,
} from './plan-schema.js';
import { unreadableCharacters } from './yaml-characters.js';
import { keyPositionOf, positionOf, type SourcePosition } from './yaml-positions.js';

/** The route of a plan task that names none (and whose plan sets no `execution.route`). */
export const DEFAULT_PLAN_ROUTE: RouteId = 'cloud-G05';

/** A plan task after validation: everything the materializer and the dry run need. */
export interface ResolvedPlanTask {
  id: string;
  title: string;
  runner: PlanRunner;
  /** The route the task runs on (explicit, or what the config's routing gives it). */
  route: RouteId;
  /** True when the plan names the route (`route` or `execution.route`): PLAN.md pins it. */
  routeExplicit: boolean;
  /** Why `route`, for the dry run. */
  routeWhy: string;
  /** Passed to PLAN.md front matter: the config's `routing` maps them to a route / review. */
  complexity?: OrchestratePlanTask['complexity'];
  risk?: OrchestratePlanTask['risk'];
  lane?: string;
  /** `depends_on` as written. */
  dependsOn: string[];
  /** Written dependencies plus the tasks of the nearest earlier non-empty lane, sorted. */
  effectiveDependsOn: string[];
  /** `backend` as written. */
  backend?: string;
  /** The catalog target `backend` resolved to (only when a catalog was given). */
  target?: string;
  /** Why `target` was chosen, for the dry run. */
  targetWhy?: string;
  files?: string[];
  /** An agent task without `files` under worktree isolation: PLAN.md `write_set: any`. */
  anyWriteSet: boolean;
  implementation: string[];
  done?: {
    argv: string[];
    assertion: DoneAssertion;
    /** The assertion as written when it is prose (the gate then checks exit code 0). */
    note?: string;
  };
  /** runner "local": argv (with `shell`, one shell script). */
  command?: string[];
  shell: boolean;
  /** "source" only with apply_to_source + commit_on_success + rollback_on_failure all true. */
  apply: 'source' | 'patch';
  /** Where the task starts in the YAML source. */
  position: SourcePosition;
}

/** A validated plan: `tasks` is complete only when `problems` has no error. */
export interface ValidatedPlan {
  file: string;
  planId: string;
  title: string;
  goal?: string;
  maxConcurrency?: number;
  /** The plan's lanes in order (`id`, `label` as written): the monitor heads its tasks with them. */
  lanes: { id: string; label?: string }[];
  tasks: ResolvedPlanTask[];
  problems: Problem[];
}

/** Options of {@link validateOrchestratePlan}. */
export interface PlanValidationOptions {
  /** The file name used in problems (and, without `metadata.id`, for the plan id). */
  file: string;
  /** The catalog: when given, every `backend` must name one of its targets or agents. */
  catalog?: Catalog;
  /** Instant for time-windowed routes (default now). */
  now?: Date;
  /** The project config's `routing` (default: the built-in one): routes by complexity/risk. */
  routing?: RoutingConfig;
  /**
   * The isolation the run will use (default "worktree"): under "none" an agent task must list
   * its `files`; under "worktree" a task without them may change any file of its worktree.
   */
  isolation?: 'worktree' | 'none';
}

type Located = (path: readonly PropertyKey[]) => SourcePosition;

/** How many alias expansions a plan may hold (yaml's own guard against alias bombs). */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses and validates a YAML plan in full: YAML syntax, the schema (unknown keys, types),
 * ids, lanes, dependencies and cycles, runners, backends (with a catalog), the definition
 * of done. Every problem carries the line and column of the YAML node it is about. Pure:
 * reads no file.
 */
export function validateOrchestratePlan(
  source: string,
  options: PlanValidationOptions,
): ValidatedPlan {
  const deep = yamlNestingLine(source);
  if (deep !== undefined)
    return tooDeep(
      options.file,
      deep,
      `lists or maps nested more than ${MAX_YAML_NESTING} levels deep`,
    );
  try {
    return validateShallowPlan(source, options);
  } catch (error) {
    // Nesting by indentation overflows the stack of the parser (or of a later walk).
    if (!(error instanceof RangeError)) throw error;
    return tooDeep(options.file, 1, 'nested too deeply to read');
  }
}

/** A plan refused for its nesting, before or while it was parsed. */
function tooDeep(file: string, line: number, what: string): ValidatedPlan {
  const problem: Problem = {
    code: 'SY_YAML_PLAN_INVALID',
    message: `YAML: ${what}`,
    file,
    line,
    column: 1,
    hint: 'a plan nests a few levels (tasks → task → definition_of_done); write the values flat',
    severity: 'error',
  };
  return { file, planId: stemOf(file), title: '', lanes: [], tasks: [], problems: [problem] };
}

function validateShallowPlan(source: string, options: PlanValidationOptions): ValidatedPlan {
  const { LineCounter, parseDocument } = yamlModule();
  const counter = new LineCounter();
  const doc = parseDocument(source, {
    lineCounter: counter,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const file = options.file;
  const result: ValidatedPlan = {
    file,
    planId: stemOf(file),
    title: '',
    lanes: [],
    tasks: [],
    problems: [],
  };
  const at: Located = (path) => positionOf(doc, counter, path);
  const report: Report = (position, message, hint, severity = 'error') =>
    result.problems.push({
      code: 'SY_YAML_PLAN_INVALID',
      message,
      file,
      line: position.line,
      column: position.column,
      ...(hint ? { hint } : {}),
      severity,
    });
  const read = readPlanDocument(doc, counter, report);
  if (!read) return result;
  const parsed = orchestratePlanSchema.safeParse(read.js);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) reportIssue(read.js, doc, counter, issue, report);
    // The checks across tasks run on the well-formed tasks now too: one round of problems.
    const parts = wellFormedParts(read.js);
    if (parts) resolveTasks(parts.plan, at, report, options, parts);
    return result;
  }
  readPlanHeader(result, parsed.data, at, report);
  result.tasks = resolveTasks(parsed.data, at, report, options);
  return result;
}

/**
 * The document as plain values, or undefined after reporting what makes it unreadable: YAML
 * syntax errors, characters a reader cannot see, aliases that expand past the limit.
 */
function readPlanDocument(
  doc: Document,
  counter: LineCounter,
  report: Report,
): { js: unknown } | undefined {
  for (const e of doc.errors) {
    const pos = counter.linePos(e.pos[0]);
    // The yaml parser turns its own stack overflow on deep nesting into this error.
    const deep = /Maximum call stack size exceeded/.test(e.message);
    report(
      { line: pos.line, column: pos.col },
      deep ? 'YAML: nested too deeply to read' : `YAML: ${e.message.split('\n')[0]}`,
      deep
        ? 'a plan nests a few levels (tasks → task → definition_of_done); write the values flat'
        : 'fix the YAML syntax (indentation, quotes, duplicate keys)',
    );
  }
  if (doc.errors.length > 0) return undefined;
  const unreadable = unreadableCharacters(doc, counter);
  for (const c of unreadable) report(c.position, c.message, c.hint);
  if (unreadable.length > 0) return undefined;
  try {
    // Aliases are expanded here; a document that expands past the limit is an alias bomb.
    return { js: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    report(
      { line: 1, column: 1 },
      `YAML: ${(error as Error).message} (aliases expand to more than ${MAX_ALIAS_COUNT} times the document's nodes)`,
      'write the values out instead of repeating anchors (&name) and aliases (*name) inside each other',
    );
    return undefined;
  }
}

/** The plan's own fields (title, goal, concurrency, id, lanes); its id must be a group folder name. */
function readPlanHeader(
  result: ValidatedPlan,
  plan: OrchestratePlan,
  at: Located,
  report: Report,
): void {
  result.title = plan.metadata.title;
  if (plan.metadata.goal !== undefined) result.goal = plan.metadata.goal;
  if (plan.execution?.max_concurrency !== undefined)
    result.maxConcurrency = plan.execution.max_concurrency;
  result.planId = plan.metadata.id ?? result.planId;
  result.lanes = (plan.lanes ?? []).map((lane) => ({
    id: lane.id,
    ...(lane.label !== undefined ? { label: lane.label } : {}),
  }));
  if (!isValidName(result.planId) || isReservedGroupName(result.planId))
    report(
      at(['metadata']),
      `plan id "${result.planId}" cannot be a task group folder name`,
      'set `metadata.id` to a name like `release-1` (not "archive" or "retros", not starting with a dot)',
    );
}

/** The file name without folders and extension: the default plan id. */
function stemOf(file: string): string {
  return basename(file, extname(file));
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** One zod issue as a positioned problem (an unknown key points at the key itself). */
function reportIssue(
  js: unknown,
  doc: Document,
  counter: LineCounter,
  issue: z.core.$ZodIssue,
  report: (p: SourcePosition, m: string, h?: string) => void,
): void {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(orchestratePlanSchema, path);
    for (const key of issue.keys)
      report(
        keyPositionOf(doc, counter, path, key),
        `unknown key "${key}"${path.length ? ` in ${pathText(path)}` : ''}`,
        unknownKeyHint(key, known, 'every key: assets/schema/orchestrate-plan.schema.json'),
      );
    return;
  }
  const value = lookup(js, path);
  const missing = value === undefined && path.length > 0;
  const parent = path.slice(0, -1);
  const where = (missing ? parent : path).length ? `${pathText(missing ? parent : path)}: ` : '';
  const message = missing
    ? `${where}required key "${String(path.at(-1))}" is missing`
    : `${where}${issue.message}${value !== undefined && typeof value !== 'object' ? ` (got ${JSON.stringify(value)})` : ''}`;
  const last = path.at(-1);
  const hint =
    last === 'runner'
      ? 'use "code-runner" (an agent through the catalog) or "local" (a command)'
      : last === 'kind' || last === 'version'
        ? 'a YAML plan starts with `version: 1` and `kind: orchestrate-plan`'
        : undefined;
  // A missing key: point at the key of the mapping that lacks it.
  const position =
    missing && parent.length > 0
      ? positionOf(doc, counter, parent, { key: true })
      : positionOf(doc, counter, path);
  report(position, message, hint);
}

function lookup(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const step of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[step as string];
  }
  return v;
}

type Report = (
  position: SourcePosition,
  message: string,
  hint?: string,
  severity?: 'error' | 'warning',
) => void;

/** The tasks of a plan that failed the schema that are well-formed on their own. */
interface WellFormedParts {
  plan: OrchestratePlan;
  /** The index in the document of each task of `plan.tasks`. */
  indexes: number[];
  /** The ids of the malformed tasks: a dependency on one is no unknown task. */
  otherIds: string[];
}

/**
 * The parts of a plan that failed the schema that the checks across tasks can still judge:
 * each task that is well-formed on its own. Undefined when what those checks read besides the
 * tasks (`lanes`, `execution`) is malformed too, or no task is well-formed.
 */
function wellFormedParts(js: unknown): WellFormedParts | undefined {
  if (js === null || typeof js !== 'object') return undefined;
  const doc = js as Record<string, unknown>;
  const shape = orchestratePlanSchema.shape;
  const lanes = shape.lanes.safeParse(doc.lanes);
  const execution = shape.execution.safeParse(doc.execution);
  if (!lanes.success || !execution.success || !Array.isArray(doc.tasks)) return undefined;
  const parts: WellFormedParts = {
    plan: { lanes: lanes.data, execution: execution.data, tasks: [] } as unknown as OrchestratePlan,
    indexes: [],
    otherIds: [],
  };
  doc.tasks.forEach((raw: unknown, i) => {
    const task = planTaskSchema.safeParse(raw);
    if (task.success) {
      parts.plan.tasks.push(task.data);
      parts.indexes.push(i);
      return;
    }
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'string' || typeof id === 'number') parts.otherIds.push(String(id));
  });
  return parts.indexes.length > 0 ? parts : undefined;
}

/** The checks across tasks, lanes and the catalog; builds the resolved tasks. `parts`: only
 * some tasks are well-formed (their document indexes, the other tasks' ids). */
function resolveTasks(
  plan: OrchestratePlan,
  at: Located,
  report: Report,
  options: PlanValidationOptions,
  parts?: Pick<WellFormedParts, 'indexes' | 'otherIds'>,
): ResolvedPlanTask[] {
  const indexOf = (k: number) => parts?.indexes[k] ?? k;
  const laneIndex = new Map<string, number>();
  (plan.lanes ?? []).forEach((lane, i) => {
    if (laneIndex.has(lane.id))
      report(
        at(['lanes', i, 'id']),
        `lane id "${lane.id}" is used twice`,
        'give every lane its own id',
      );
    else laneIndex.set(lane.id, i);
  });
  const taskIndex = new Map<string, number>();
  plan.tasks.forEach((task, k) => {
    const i = indexOf(k);
    if (!isValidName(task.id) || task.id.startsWith('.'))
      report(
        at(['tasks', i, 'id']),
        `task id "${task.id}" cannot be a folder name`,
        'use letters, digits, dots, dashes or underscores (no slash, not starting with a dot)',
      );
    if (taskIndex.has(task.id))
      report(
        at(['tasks', i, 'id']),
        `task id "${task.id}" is used twice`,
        'task ids must be unique',
      );
    else taskIndex.set(task.id, i);
  });
  // Lane levels: a task of lane k waits for the tasks of the nearest earlier non-empty lane
  // (which wait for theirs): every task of every earlier lane is done first.
  const byLane = new Map<number, string[]>();
  const taskLane = new Map<string, number>();
  plan.tasks.forEach((task, k) => {
    const i = indexOf(k);
    if (task.lane === undefined) return;
    const index = laneIndex.get(task.lane);
    if (index === undefined) {
      report(
        at(['tasks', i, 'lane']),
        `lane "${task.lane}" is not declared in lanes`,
        `declared lanes: ${[...laneIndex.keys()].join(', ') || '(none)'}`,
      );
      return;
    }
    byLane.set(index, [...(byLane.get(index) ?? []), task.id]);
    taskLane.set(task.id, index);
  });
  const laneDeps = (lane: string | undefined): string[] => {
    const index = lane === undefined ? undefined : laneIndex.get(lane);
    if (index === undefined) return [];
    for (let k = index - 1; k >= 0; k--) {
      const ids = byLane.get(k);
      if (ids?.length) return ids;
    }
    return [];
  };
  const defaultRoute = plan.execution?.route as RouteId | undefined;
  for (const id of parts?.otherIds ?? []) if (!taskIndex.has(id)) taskIndex.set(id, -1);
  const resolved = plan.tasks.map((task, k) =>
    resolveTask(task, indexOf(k), {
      at,
      report,
      options,
      taskIndex,
      laneIndex,
      taskLane,
      laneDeps: laneDeps(task.lane),
      defaultRoute,
    }),
  );
  reportCycles(resolved, taskIndex, at, report);
  return resolved;
}

interface TaskContext {
  at: Located;
  report: Report;
  options: PlanValidationOptions;
  taskIndex: Map<string, number>;
  laneIndex: Map<string, number>;
  /** The lane index of every task that has a declared lane. */
  taskLane: Map<string, number>;
  laneDeps: string[];
  /** `execution.route`, when the plan sets one. */
  defaultRoute: RouteId | undefined;
}

/**
 * A task's route: its own `route` > `execution.route` > the config's routing for its
 * complexity/risk (as the dispatcher decides for PLAN.md) > {@link DEFAULT_PLAN_ROUTE}.
 */
function routeOf(
  task: OrchestratePlanTask,
  defaultRoute: RouteId | undefined,
  routing: RoutingConfig,
): { route: RouteId; explicit: boolean; why: string } {
  const explicit = (task.route as RouteId | undefined) ?? defaultRoute;
  const routed = routeTask(
    { ...(explicit ? { route: explicit } : {}), complexity: task.complexity, risk: task.risk },
    routing,
  );
  if (explicit) return { route: explicit, explicit: true, why: routed.why };
  if (routed.route) return { route: routed.route as RouteId, explicit: false, why: routed.why };
  return {
    route: DEFAULT_PLAN_ROUTE,
    explicit: true,
    why: `no route, complexity or risk: the default ${DEFAULT_PLAN_ROUTE}`,
  };
}

type Here = (...path: PropertyKey[]) => SourcePosition;

/** Checks one task against the plan and builds what the materializer needs of it. */
function resolveTask(task: OrchestratePlanTask, i: number, c: TaskContext): ResolvedPlanTask {
  const { report } = c;
  const here: Here = (...path) => c.at(['tasks', i, ...path]);
  checkDependencies(task, here, c);
  const route = routeOf(task, c.defaultRoute, c.options.routing ?? DEFAULT_ROUTING);
  const resolved: ResolvedPlanTask = {
    id: task.id,
    title: task.title,
    runner: task.runner,
    route: route.route,
    routeExplicit: route.explicit,
    routeWhy: route.why,
    dependsOn: [...task.depends_on],
    effectiveDependsOn: [...new Set([...task.depends_on, ...c.laneDeps])].sort(),
    implementation: task.implementation ?? [],
    shell: task.shell === true,
    anyWriteSet: false,
    apply: 'patch',
    position: here(),
  };
  if (task.lane !== undefined) resolved.lane = task.lane;
  if (task.complexity !== undefined) resolved.complexity = task.complexity;
  if (task.risk !== undefined) resolved.risk = task.risk;
  if (task.files) resolved.files = [...task.files];
  checkRunner(task, resolved, here, report);
  checkDone(task, resolved, here, report);
  checkSourceContract(task, resolved, here, report);
  checkWriteSet(task, resolved, here, c);
  if (task.backend !== undefined) resolveTaskBackend(task, task.backend, resolved, here, c);
  return resolved;
}

/** Each dependency is another task of the plan, and not one of a later lane. */
function checkDependencies(task: OrchestratePlanTask, here: Here, c: TaskContext): void {
  task.depends_on.forEach((dep, d) => {
    if (dep === task.id)
      c.report(here('depends_on', d), `task "${task.id}" depends on itself`, 'remove the entry');
    else if (!c.taskIndex.has(dep))
      c.report(
        here('depends_on', d),
        `task "${task.id}" depends on "${dep}", which is not a task of this plan`,
        `task ids: ${[...c.taskIndex.keys()].join(', ')}`,
      );
    else {
      const own = task.lane === undefined ? undefined : c.laneIndex.get(task.lane);
      const other = c.taskLane.get(dep);
      if (own !== undefined && other !== undefined && other > own)
        c.report(
          here('depends_on', d),
          `task "${task.id}" (lane "${task.lane}") depends on "${dep}" of a later lane: a cycle, since later lanes wait for earlier ones`,
          'move one of the two tasks to another lane or drop the dependency',
        );
    }
  });
}

/** The task lands a commit only with the whole source contract; part of it ends with a patch. */
function checkSourceContract(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  const contract = [task.apply_to_source, task.commit_on_success, task.rollback_on_failure];
  if (contract.every((v) => v === true)) resolved.apply = 'source';
  else if (task.runner === 'code-runner' && contract.some((v) => v === true))
    report(
      here('apply_to_source'),
      `task "${task.id}" sets only part of the source contract: it ends with a patch, the source untouched`,
      'set apply_to_source, commit_on_success and rollback_on_failure all to true to land a commit',
      'warning',
    );
}

/** A task without `files`: never for a local command; for an agent, only under worktree isolation. */
function checkWriteSet(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  c: TaskContext,
): void {
  if (task.runner === 'local' && !task.files)
    c.report(
      here(),
      `local task "${task.id}" has no \`files\` (the files its command writes)`,
      'a local command runs in the source workspace, never in a worktree, so it always needs its write set (its claim): `files: [package-lock.json]`',
    );
  if (task.runner === 'code-runner' && !task.files) {
    if ((c.options.isolation ?? 'worktree') === 'worktree') resolved.anyWriteSet = true;
    else
      c.report(
        here(),
        `task "${task.id}" has no \`files\` (its write set), which only worktree isolation allows; this run has isolation "none"`,
        'add `files: [src/a.ts]` (the workspace-relative files the task may change), or run in a git repository with isolation "worktree"',
      );
  }
}

/** `backend` as written, and for an agent task (with a catalog) the target it resolves to. */
function resolveTaskBackend(
  task: OrchestratePlanTask,
  backend: string,
  resolved: ResolvedPlanTask,
  here: Here,
  c: TaskContext,
): void {
  resolved.backend = backend;
  if (!c.options.catalog || task.runner !== 'code-runner') return;
  const found = resolveBackend(
    c.options.catalog,
    backend,
    resolved.route,
    c.options.now ?? new Date(),
  );
  if ('error' in found) c.report(here('backend'), found.error, found.hint);
  else {
    resolved.target = found.target;
    resolved.targetWhy = found.why;
  }
}

/** Local tasks need a command and run no agent; agent tasks take no command. */
function checkRunner(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  if (task.runner === 'local') {
    if (!task.command)
      report(
        here('runner'),
        `local task "${task.id}" has no \`command\``,
        'add the command as an argv list: `command: [node, scripts/setup.mjs]`',
      );
    else resolved.command = [...task.command];
    if (task.shell && task.command && task.command.length !== 1)
      report(
        here('command'),
        `task "${task.id}" has \`shell: true\`: \`command\` must be one shell script string`,
        'write `command: ["npm ci && npm test"]` with `shell: true`, or drop `shell` and give argv',
      );
    if (task.backend !== undefined)
      report(
        here('backend'),
        `local task "${task.id}" runs no agent: \`backend\` does not apply`,
        'remove `backend`, or use `runner: code-runner`',
      );
    return;
  }
  for (const key of ['command', 'shell'] as const)
    if (task[key] !== undefined)
      report(
        here(key),
        `\`${key}\` is only for \`runner: local\` (task "${task.id}" runs an agent)`,
        'remove it, or set `runner: local` for a deterministic command',
      );
}

/** The definition of done: a command without shell operators and a checked assertion form. */
function checkDone(
  task: OrchestratePlanTask,
  resolved: ResolvedPlanTask,
  here: Here,
  report: Report,
): void {
  const done = task.definition_of_done;
  if (!done) return;
  let argv: string[] | undefined;
  if (Array.isArray(done.command)) argv = [...done.command];
  else {
    const split = splitArgv(done.command);
    if ('error' in split || split.argv.length === 0)
      report(
        here('definition_of_done', 'command'),
        `definition_of_done.command: ${'error' in split ? split.error : 'empty'}`,
        'the command runs without a shell; put pipelines in a script and run the script',
      );
    else argv = split.argv;
  }
  const parsed = parseAssertion(done.assertion);
  let assertion: DoneAssertion = { kind: 'exit-code', code: 0 };
  let note: string | undefined;
  if ('error' in parsed) {
    if (/^\s*`?\s*(exit|stdout)\b/i.test(done.assertion))
      report(
        here('definition_of_done', 'assertion'),
        `definition_of_done.assertion: ${parsed.error}`,
      );
    else {
      note = done.assertion;
      report(
        here('definition_of_done', 'assertion'),
        `assertion "${done.assertion}" is prose: the gate checks exit code 0 and keeps the text as a note`,
        'write `exit code 0`, `stdout contains "text"` or `stdout matches /re/` to check more',
        'warning',
      );
    }
  } else assertion = parsed;
  if (argv) resolved.done = { argv, assertion, ...(note !== undefined ? { note } : {}) };
}

/** Reports every dependency cycle once, at the `depends_on` of its first task. */
function reportCycles(
  tasks: ResolvedPlanTask[],
  taskIndex: Map<string, number>,
  at: Located,
  report: Report,
): void {
  // The first task of a duplicated id counts (the duplicate is reported on its own).
  const deps = new Map<string, string[]>();
  for (const t of tasks)
    if (!deps.has(t.id))
      deps.set(
        t.id,
        t.effectiveDependsOn.filter((d) => taskIndex.has(d)),
      );
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      if (state.get(dep) === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(dep)), dep];
        const key = [...cycle].slice(0, -1).sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          report(
            at(['tasks', taskIndex.get(dep) ?? 0, 'depends_on']),
            `dependency cycle: ${cycle.join(' -> ')}`,
            'remove one dependency of the cycle (lanes count as dependencies on earlier lanes)',
          );
        }
      } else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const t of tasks) if (!state.has(t.id)) visit(t.id);
}
