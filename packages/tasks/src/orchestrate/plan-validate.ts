import { basename, extname } from 'node:path';
import type { Problem, RouteId } from '@switchyard/core';
import { knownKeysAt, unknownKeyHint } from '@switchyard/utils';
import type { Document, LineCounter } from 'yaml';
import type { z } from 'zod';
import { yamlModule } from '../task/front-matter-pairs.js';
import { isReservedGroupName, isValidName } from '../task/task-id.js';
import { MAX_YAML_NESTING, yamlNestingLine } from '../task/yaml-nesting.js';
import { type OrchestratePlan, orchestratePlanSchema, planTaskSchema } from './plan-schema.js';
import {
  type Located,
  type PlanTaskOptions,
  type Report,
  type ResolvedPlanTask,
  resolveTask,
} from './plan-task.js';
import { unreadableCharacters } from './yaml-characters.js';
import { keyPositionOf, positionOf, type SourcePosition } from './yaml-positions.js';

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
export interface PlanValidationOptions extends PlanTaskOptions {
  /** The file name used in problems (and, without `metadata.id`, for the plan id). */
  file: string;
}

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
