import { relative } from 'node:path';
import type { ClaimRecord, Problem } from '@switchyard/core/dry-run';
import type { WorkspaceModel } from '@switchyard/tasks';
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
import { stageTargets } from './stage-targets.js';

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
  // Files inside the workspace are shown relative to it; others (a catalog elsewhere) stay absolute.
  const rel = (file: string | undefined) => {
    if (!file?.startsWith('/')) return file;
    const r = relative(model.workspace, file);
    return r.startsWith('..') ? file : r || '.';
  };
  if (input.taskGroup !== undefined && !model.groups.includes(input.taskGroup))
    push({
      code: 'SY_UNKNOWN_GROUP',
      message: `task group "${input.taskGroup}" does not exist under agent-task/`,
      hint: `known groups: ${model.groups.join(', ') || '(none)'}`,
      severity: 'error',
    });
  const agents = routing.agents ?? new Map<string, string>();
  const agentNames = new Set(agents.values());
  if (
    input.withTarget !== undefined &&
    routing.valid &&
    !routing.targetIds.has(input.withTarget) &&
    !agentNames.has(input.withTarget)
  )
    push({
      code: 'SY_USAGE',
      message: `--with "${input.withTarget}" is neither a catalog target nor an agent of the catalog`,
      hint: `targets: ${[...routing.targetIds].join(', ') || '(none)'}; agents: ${[...agentNames].join(', ') || '(none)'}`,
      severity: 'error',
    });
  for (const task of model.tasks) {
    push(...task.problems);
    if (task.target !== undefined && routing.valid && !routing.targetIds.has(task.target)) {
      const p: Problem = {
        code: 'SY_PLAN_INVALID',
        message: `target "${task.target}" is not a target of the catalog`,
        file: task.planFile,
        hint: 'use a target id from `switchyard catalog show`, or remove the pin',
        severity: 'error',
      };
      task.problems.push(p);
      push(p);
      task.valid = false;
    }
  }
  const select = cachedSelect(input, push);
  const inScope = (group: string) => input.taskGroup === undefined || group === input.taskGroup;
  const admissionTasks = model.tasks.map((t) => admissionTaskOf(t, input.slotFree?.has(t.id)));
  const claims = new Map<string, string>();
  for (const record of input.claims) for (const p of record.paths) claims.set(p, record.taskId);
  const result = admit({
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
  const decisions = new Map(result.decisions.map((d) => [d.id, d]));
  const collisions = writeSetCollisions(admissionTasks);
  const serialized = new Map<string, Set<string>>();
  for (const c of collisions)
    for (const id of c.tasks) {
      const set = serialized.get(id) ?? new Set<string>();
      for (const other of c.tasks) if (other !== id) set.add(other);
      serialized.set(id, set);
    }
  const tasks: DryRunTask[] = model.tasks.map((t) => {
    const decision = decisions.get(t.id);
    const withKnown =
      input.withTarget !== undefined &&
      (routing.targetIds.has(input.withTarget) || agentNames.has(input.withTarget));
    const routed = stageTargets({
      route: t.route,
      pin: t.target,
      withName: withKnown ? input.withTarget : undefined,
      redTeam: t.review === 'red-team',
      agents,
      select: (stage) => select(stage, t.route),
      stages: routing.stages,
      planFile: t.planFile,
    });
    const stages = routed.stages;
    if (routing.valid && t.valid) {
      t.problems.push(...routed.problems);
      push(...routed.problems);
    }
    return {
      id: t.id,
      group: t.group,
      plan: t.planFile,
      plan_loop: t.planLoop,
      in_scope: inScope(t.group),
      valid: t.valid,
      route: t.route ?? null,
      route_reason: t.routeReason ?? (t.route ? `route: ${t.route} in PLAN.md` : null),
      review: t.review ?? null,
      target: t.target ?? null,
      depends_on: t.dependsOn.map((d) => d.id),
      status: decision?.status ?? 'invalid',
      blocked: input.blocked?.get(t.id) ?? null,
      waiting_on: decision?.waitingOn ?? decision?.conflicts?.map((c) => c.holder) ?? [],
      waiting_on_blocked_claim: [
        ...new Set(
          (decision?.conflicts ?? []).map((c) => c.holder).filter((h) => input.blocked?.has(h)),
        ),
      ].sort(),
      write_set: t.writeSet.map((e) => ({
        path: e.path,
        line: e.line,
        ...(e.note ? { note: e.note } : {}),
        ...(e.resolved ? { resolved: e.resolved } : {}),
      })),
      serialized_with: [...(serialized.get(t.id) ?? [])].sort(),
      stages,
      checklist: {
        total: t.checklist.length,
        checked: t.checklist.filter((c) => c.checked).length,
      },
      definition_of_done: t.definitionOfDone
        ? {
            command: t.definitionOfDone.command,
            argv: t.definitionOfDone.argv,
            assertion: t.definitionOfDone.assertion,
          }
        : null,
      problems: t.problems.map((p) => toDryRunProblem({ ...p, file: rel(p.file) })),
    };
  });
  const all = [...problems].map((p) => toDryRunProblem({ ...p, file: rel(p.file) }));
  const scoped = tasks.filter((t) => t.in_scope);
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
    summary: {
      tasks: tasks.length,
      in_scope: scoped.length,
      admitted: result.admitted.length,
      waiting: scoped.filter((t) => t.status.startsWith('waiting')).length,
      invalid: scoped.filter((t) => !t.valid).length,
      errors: all.filter((p) => p.severity === 'error').length,
      warnings: all.filter((p) => p.severity === 'warning').length,
    },
    problems: all,
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
