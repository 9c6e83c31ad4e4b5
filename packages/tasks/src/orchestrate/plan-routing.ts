import type { Catalog } from '@switchyard/catalog';
import {
  agentsOf,
  type NamedTarget,
  resolveNamedTarget,
  reviewCandidates,
  selectCandidates,
} from '@switchyard/catalog';
import { type RouteId, STAGES, type Stage } from '@switchyard/core';

/** A plan task's `backend` resolved to a catalog target, or why it cannot be. */
export type BackendResolution = NamedTarget;

/**
 * `backend` names a catalog target id, or an agent name: then the first worker candidate of
 * the task's route served by that agent. An agent that serves no candidate of the route, or a
 * name the catalog does not know, is an error naming what it does know.
 */
export function resolveBackend(
  catalog: Catalog,
  backend: string,
  route: RouteId,
  now: Date,
): BackendResolution {
  const named = resolveNamedTarget(backend, 'backend', {
    agents: agentsOf(catalog.targets),
    routeId: route,
    workerCandidates: selectCandidates(catalog, 'worker', route, now).candidates,
  });
  return 'target' in named ? { ...named, why: `task ${named.why}` } : named;
}

/** Which target a stage of a plan task would use now, and why (the routing precedence). */
export interface StageRoute {
  stage: Stage;
  target: string | null;
  /** `task-backend`, `with`, `route`; `local` for a local task (no agent). */
  source: 'task-backend' | 'with' | 'route' | 'local';
  why: string;
  /** The route's candidates after the chosen one is put first (failover order). */
  candidates: string[];
}

/**
 * Routing precedence for one task's worker: its `backend` > the run's `with <name>` (a target
 * id, or an agent: its first worker candidate of the route) > the route's first candidate.
 * The chosen target is put first and the route's others stay as failover, as the dispatcher
 * does with a `target` pin. The review keeps its route: backend and `with` choose only the
 * worker, and the review never runs on the worker's target while its route has another.
 */
export function planTaskRoutes(
  catalog: Catalog,
  task: { runner: string; route: RouteId; target?: string; targetWhy?: string },
  runWith: string | undefined,
  now: Date,
): StageRoute[] {
  if (task.runner === 'local')
    return STAGES.map((stage) => ({
      stage,
      target: null,
      source: 'local',
      why: 'local runner: a command, no agent',
      candidates: [],
    }));
  const worker = workerRoute(catalog, task, runWith, now);
  return STAGES.map((stage) => {
    if (stage === 'worker') return worker;
    const route = selectCandidates(catalog, stage, task.route, now).candidates;
    const candidates = reviewCandidates(route, worker.target ?? undefined);
    const kept = worker.target !== null && !candidates.includes(worker.target);
    return {
      stage,
      target: candidates[0] ?? null,
      source: 'route',
      why: `first candidate of ${stage} route ${task.route}${kept ? ` other than the worker's ${worker.target}` : ''} (backend and \`with\` choose only the worker)`,
      candidates,
    };
  });
}

function workerRoute(
  catalog: Catalog,
  task: { route: RouteId; target?: string; targetWhy?: string },
  runWith: string | undefined,
  now: Date,
): StageRoute {
  const route = selectCandidates(catalog, 'worker', task.route, now).candidates;
  const withFirst = (id: string) => [id, ...route.filter((c) => c !== id)];
  if (task.target !== undefined)
    return {
      stage: 'worker',
      target: task.target,
      source: 'task-backend',
      why: `${task.targetWhy ?? `task backend "${task.target}"`}; wins over \`with\``,
      candidates: withFirst(task.target),
    };
  const named = runWith === undefined ? undefined : resolveWith(catalog, runWith, task.route, now);
  if (named && 'target' in named)
    return {
      stage: 'worker',
      target: named.target,
      source: 'with',
      why: `the run's \`with ${runWith}\` (the task names no backend)${named.target === runWith ? '' : `: ${named.why}`}`,
      candidates: withFirst(named.target),
    };
  return {
    stage: 'worker',
    target: route[0] ?? null,
    source: 'route',
    why: `first candidate of worker route ${task.route} (no backend, no \`with\`)`,
    candidates: route,
  };
}

/** The run's `with <name>` for a route: a target id, or the agent's first worker candidate. */
export function resolveWith(
  catalog: Catalog,
  name: string,
  route: RouteId,
  now: Date,
): ReturnType<typeof resolveNamedTarget> {
  return resolveNamedTarget(name, 'with', {
    agents: agentsOf(catalog.targets),
    routeId: route,
    workerCandidates: selectCandidates(catalog, 'worker', route, now).candidates,
  });
}
