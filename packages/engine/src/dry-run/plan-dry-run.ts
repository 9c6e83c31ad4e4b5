import { relative } from 'node:path';
import type { ClaimRecord, Problem } from '@switchyard/core/dry-run';
import type { LoadedTask, WorkspaceModel } from '@switchyard/tasks';
import { admit } from '../admission/admit.js';
import { writeSetCollisions } from '../admission/collisions.js';
import { admissionTaskOf } from '../admission/task-view.js';
import {
  DRY_RUN_SCHEMA_VERSION,
  type DryRunReport,
  type DryRunStage,
  type DryRunTask,
  toDryRunProblem,
} from './report.js';
import { dryRunTask, serializedWith, type TaskEntryContext } from './task-entry.js';

/** The catalog as the dry run sees it; the CLI fills it from the resolved catalog. */
export interface DryRunRouting {
  valid: boolean;
  source?: { kind: string; path?: string };
  revision?: string;
  /** Catalog problems (reported, and they make the dry run fail). */
  problems: Problem[];
  /** Target ids of the catalog (to check `target` pins and `--with`). */
  targetIds: ReadonlySet<string>;
  /** Target id → agent identity (`with <agent>`, the red-team review's agent families). */
  agents?: ReadonlyMap<string, string>;
  /** Stage names, in lifecycle order. */
  stages: readonly string[];
  /** Candidates of a route for a stage at an instant. */
  select?: (
    stage: string,
    routeId: string,
    at: Date,
  ) => { candidates: string[]; window?: DryRunStage['window'] };
}

/** Input of {@link planDryRun}. */
export interface DryRunInput {
  model: WorkspaceModel;
  routing: DryRunRouting;
  taskGroup?: string;
  maxParallel: number;
  withTarget?: string;
  retryBlocked?: boolean;
  /** Held claims (read-only from the state dir). */
  claims: readonly ClaimRecord[];
  /** Tasks the dispatcher blocked, with the reason (ignored with `retryBlocked`). */
  blocked?: ReadonlyMap<string, string>;
  /** Tasks with a live attempt now (each is one active stage). */
  liveAttempts?: ReadonlySet<string>;
  /** Tasks whose next stage takes no agent slot (see `slotFreeTasks`), as the live run counts. */
  slotFree?: ReadonlySet<string>;
  now: Date;
}

/** Builds the dry-run report: what a run would do now, and every problem. Launches nothing. */
export function planDryRun(input: DryRunInput): DryRunReport {
  const { model, routing } = input;
  // A Set: a cycle's problem is attached to every member task but reported once.
  const problems = new Set<Problem>([...routing.problems, ...model.problems]);
  const push = (...ps: Problem[]) => {
    for (const p of ps) problems.add(p);
  };
  const rel = relativeTo(model.workspace);
  const agents = routing.agents ?? new Map<string, string>();
  const withKnown = knowsWith(input, agents);
  push(...optionProblems(input, agents));
  for (const task of model.tasks) push(...task.problems, ...pinProblems(input, task));
  const select = cachedSelect(input, push);
  const inScope = (group: string) => input.taskGroup === undefined || group === input.taskGroup;
  const admissionTasks = model.tasks.map((t) => admissionTaskOf(t, input.slotFree?.has(t.id)));
  const result = admitNow(input, admissionTasks, inScope);
  const collisions = writeSetCollisions(admissionTasks);
  const entry: TaskEntryContext = {
    routingValid: routing.valid,
    stages: routing.stages,
    agents,
    withName: withKnown ? input.withTarget : undefined,
    select,
    push,
    inScope,
    decisions: new Map(result.decisions.map((d) => [d.id, d])),
    serialized: serializedWith(collisions),
    blocked: input.blocked,
    rel,
  };
  const tasks = model.tasks.map((t) => dryRunTask(entry, t));
  const all = [...problems].map((p) => toDryRunProblem({ ...p, file: rel(p.file) }));
  return {
    schema_version: DRY_RUN_SCHEMA_VERSION,
    kind: 'switchyard.dry-run',
    generated_at: input.now.toISOString(),
    workspace: model.workspace,
    options: {
      task_group: input.taskGroup ?? null,
      max_parallel: input.maxParallel,
      with: input.withTarget ?? null,
      retry_blocked: input.retryBlocked ?? false,
    },
    catalog: {
      valid: routing.valid,
      source: routing.source ?? null,
      revision: routing.revision ?? null,
    },
    tasks,
    archived: [...model.archived.values()]
      .map((a) => ({ id: a.id, complete: a.complete }))
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
    collisions,
    claims: input.claims.map((c) => ({ task: c.taskId, paths: c.paths, since: c.since })),
    admission: {
      admitted: result.admitted,
      active_stages: input.liveAttempts?.size ?? 0,
      max_parallel: input.maxParallel,
    },
    summary: summaryOf(tasks, all, result.admitted.length),
    problems: all,
  };
}

/** Files inside the workspace are shown relative to it; others (a catalog elsewhere) stay absolute. */
function relativeTo(workspace: string) {
  return (file: string | undefined) => {
    if (!file?.startsWith('/')) return file;
    const r = relative(workspace, file);
    return r.startsWith('..') ? file : r || '.';
  };
}

/** `--with` names a target or an agent of a valid catalog. */
function knowsWith(input: DryRunInput, agents: ReadonlyMap<string, string>): boolean {
  const name = input.withTarget;
  if (name === undefined) return false;
  return input.routing.targetIds.has(name) || new Set(agents.values()).has(name);
}

/** The run's options against the workspace and catalog: an unknown group, an unknown `--with`. */
function optionProblems(input: DryRunInput, agents: ReadonlyMap<string, string>): Problem[] {
  const { model, routing } = input;
  const problems: Problem[] = [];
  if (input.taskGroup !== undefined && !model.groups.includes(input.taskGroup))
    problems.push({
      code: 'SY_UNKNOWN_GROUP',
      message: `task group "${input.taskGroup}" does not exist under agent-task/`,
      hint: `known groups: ${model.groups.join(', ') || '(none)'}`,
      severity: 'error',
    });
  const agentNames = new Set(agents.values());
  if (input.withTarget !== undefined && routing.valid && !knowsWith(input, agents))
    problems.push({
      code: 'SY_USAGE',
      message: `--with "${input.withTarget}" is neither a catalog target nor an agent of the catalog`,
      hint: `targets: ${[...routing.targetIds].join(', ') || '(none)'}; agents: ${[...agentNames].join(', ') || '(none)'}`,
      severity: 'error',
    });
  return problems;
}

/** A PLAN's `target` pin the catalog lacks: the task becomes invalid, the problem is its own. */
function pinProblems(input: DryRunInput, task: LoadedTask): Problem[] {
  const { routing } = input;
  if (task.target === undefined || !routing.valid || routing.targetIds.has(task.target)) return [];
  const p: Problem = {
    code: 'SY_PLAN_INVALID',
    message: `target "${task.target}" is not a target of the catalog`,
    file: task.planFile,
    hint: 'use a target id from `switchyard catalog show`, or remove the pin',
    severity: 'error',
  };
  task.problems.push(p);
  task.valid = false;
  return [p];
}

/** Admission as a run would decide it now, from the held claims and live attempts. */
function admitNow(
  input: DryRunInput,
  admissionTasks: ReturnType<typeof admissionTaskOf>[],
  inScope: (group: string) => boolean,
) {
  const { model } = input;
  const claims = new Map<string, string>();
  for (const record of input.claims) for (const p of record.paths) claims.set(p, record.taskId);
  return admit({
    tasks: admissionTasks,
    archivedComplete: new Set(
      [...model.archived.values()].filter((a) => a.complete).map((a) => a.id),
    ),
    liveAttempts: input.liveAttempts ?? new Set(),
    ...(input.blocked && !input.retryBlocked ? { blocked: new Set(input.blocked.keys()) } : {}),
    invalid: new Set(model.tasks.filter((t) => !t.valid).map((t) => t.id)),
    claims,
    activeStages: input.liveAttempts?.size ?? 0,
    maxParallel: input.maxParallel,
    scope: new Set(model.tasks.filter((t) => inScope(t.group)).map((t) => t.id)),
  });
}

/** The report's counts: of the tasks in scope, and of every problem. */
function summaryOf(
  tasks: readonly DryRunTask[],
  all: readonly ReturnType<typeof toDryRunProblem>[],
  admitted: number,
): DryRunReport['summary'] {
  const scoped = tasks.filter((t) => t.in_scope);
  return {
    tasks: tasks.length,
    in_scope: scoped.length,
    admitted,
    waiting: scoped.filter((t) => t.status.startsWith('waiting')).length,
    invalid: scoped.filter((t) => !t.valid).length,
    errors: all.filter((p) => p.severity === 'error').length,
    warnings: all.filter((p) => p.severity === 'warning').length,
  };
}

type Selected = ReturnType<NonNullable<DryRunRouting['select']>>;

/** Candidates per (stage, route), computed once; a selection error is reported once. */
function cachedSelect(input: DryRunInput, push: (p: Problem) => void) {
  const cache = new Map<string, Selected | null>();
  return (stage: string, route: string | undefined): Selected | undefined => {
    const { select, valid } = input.routing;
    if (!route || !valid || !select) return undefined;
    const key = `${stage}\0${route}`;
    if (!cache.has(key)) {
      try {
        cache.set(key, select(stage, route, input.now));
      } catch (error) {
        // e.g. a windowed route with no window now: report it, keep going
        const e = error as {
          code?: Problem['code'];
          message?: string;
          path?: string;
          hint?: string;
        };
        push({
          code: e.code ?? 'SY_CATALOG_INVALID',
          message: e.message ?? String(error),
          path: e.path,
          hint: e.hint,
          severity: 'error',
        });
        cache.set(key, null);
      }
    }
    return cache.get(key) ?? undefined;
  };
}
