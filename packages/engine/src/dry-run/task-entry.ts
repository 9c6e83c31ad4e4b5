import type { Problem } from '@switchyard/core/dry-run';
import type { LoadedTask } from '@switchyard/tasks';
import type { AdmissionDecision } from '../admission/admit.js';
import type { WriteSetCollision } from '../admission/collisions.js';
import { type DryRunStage, type DryRunTask, toDryRunProblem } from './report.js';
import { stageTargets } from './stage-targets.js';

type Selected = { candidates: string[]; window?: DryRunStage['window'] };

/** What every task's entry of a dry run is built from. */
export interface TaskEntryContext {
  routingValid: boolean;
  /** Stage names, in lifecycle order. */
  stages: readonly string[];
  agents: ReadonlyMap<string, string>;
  /** `--with`, when it names a target or an agent of the catalog. */
  withName: string | undefined;
  /** Candidates of a route for a stage (computed once; an error reported once). */
  select: (stage: string, route: string | undefined) => Selected | undefined;
  push: (...ps: Problem[]) => void;
  inScope: (group: string) => boolean;
  decisions: ReadonlyMap<string, AdmissionDecision>;
  /** Task id -> the tasks whose write sets collide with its own. */
  serialized: ReadonlyMap<string, ReadonlySet<string>>;
  blocked: ReadonlyMap<string, string> | undefined;
  /** A problem's file as the report shows it. */
  rel: (file: string | undefined) => string | undefined;
}

/** Task id -> the other tasks of each write-set collision it is part of. */
export function serializedWith(collisions: readonly WriteSetCollision[]): Map<string, Set<string>> {
  const serialized = new Map<string, Set<string>>();
  for (const c of collisions)
    for (const id of c.tasks) {
      const set = serialized.get(id) ?? new Set<string>();
      for (const other of c.tasks) if (other !== id) set.add(other);
      serialized.set(id, set);
    }
  return serialized;
}

/** One task's entry: its admission, its stages' targets (their problems added), its plan. */
export function dryRunTask(ctx: TaskEntryContext, t: LoadedTask): DryRunTask {
  const decision = ctx.decisions.get(t.id);
  const routed = stageTargets({
    route: t.route,
    pin: t.target,
    withName: ctx.withName,
    redTeam: t.review === 'red-team',
    agents: ctx.agents,
    select: (stage) => ctx.select(stage, t.route),
    stages: ctx.stages,
    planFile: t.planFile,
  });
  if (ctx.routingValid && t.valid) {
    t.problems.push(...routed.problems);
    ctx.push(...routed.problems);
  }
  const conflicts = decision?.conflicts ?? [];
  return {
    id: t.id,
    group: t.group,
    plan: t.planFile,
    plan_loop: t.planLoop,
    in_scope: ctx.inScope(t.group),
    valid: t.valid,
    route: t.route ?? null,
    route_reason: t.routeReason ?? (t.route ? `route: ${t.route} in PLAN.md` : null),
    review: t.review ?? null,
    target: t.target ?? null,
    depends_on: t.dependsOn.map((d) => d.id),
    status: decision?.status ?? 'invalid',
    blocked: ctx.blocked?.get(t.id) ?? null,
    waiting_on: decision?.waitingOn ?? decision?.conflicts?.map((c) => c.holder) ?? [],
    waiting_on_blocked_claim: [
      ...new Set(conflicts.map((c) => c.holder).filter((h) => ctx.blocked?.has(h))),
    ].sort(),
    write_set: t.writeSet.map((e) => ({
      path: e.path,
      line: e.line,
      ...(e.note ? { note: e.note } : {}),
      ...(e.resolved ? { resolved: e.resolved } : {}),
    })),
    serialized_with: [...(ctx.serialized.get(t.id) ?? [])].sort(),
    stages: routed.stages,
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
    problems: t.problems.map((p) => toDryRunProblem({ ...p, file: ctx.rel(p.file) })),
  };
}
