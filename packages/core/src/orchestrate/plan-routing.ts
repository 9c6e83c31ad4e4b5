import { type RouteId, STAGES, type Stage } from '../catalog/constants.js';
import type { Catalog } from '../catalog/schema.js';
import { selectCandidates } from '../catalog/select.js';

/** A plan task's `backend` resolved to a catalog target, or why it cannot be. */
export type BackendResolution = { target: string; why: string } | { error: string; hint: string };

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
  if (backend in catalog.targets)
    return { target: backend, why: `task backend "${backend}" (a target id)` };
  const agents = new Set(Object.values(catalog.targets).map((t) => t.agent));
  if (!agents.has(backend))
    return {
      error: `backend "${backend}" is neither a target id nor an agent of the catalog`,
      hint: `targets: ${Object.keys(catalog.targets).join(', ')}; agents: ${[...agents].join(', ')}`,
    };
  const candidates = selectCandidates(catalog, 'worker', route, now).candidates;
  const target = candidates.find((id) => catalog.targets[id]?.agent === backend);
  if (target === undefined)
    return {
      error: `backend "${backend}" serves no worker candidate of route ${route}`,
      hint: `name a target id instead (targets of ${backend}: ${Object.entries(catalog.targets)
        .filter(([, t]) => t.agent === backend)
        .map(([id]) => id)
        .join(', ')}), or pick a route whose candidates include it`,
    };
  return {
    target,
    why: `task backend "${backend}" (an agent): first ${route} worker candidate it serves`,
  };
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
 * Routing precedence for one task: its `backend` > the run's `with <target>` > the route's
 * first candidate. The chosen target is put first and the route's others stay as failover,
 * as the dispatcher does with a `target` pin.
 */
export function planTaskRoutes(
  catalog: Catalog,
  task: { runner: string; route: RouteId; target?: string; targetWhy?: string },
  runWith: string | undefined,
  now: Date,
): StageRoute[] {
  return STAGES.map((stage) => {
    if (task.runner === 'local')
      return {
        stage,
        target: null,
        source: 'local',
        why: 'local runner: a command, no agent',
        candidates: [],
      };
    const route = selectCandidates(catalog, stage, task.route, now).candidates;
    const pinned = task.target ?? runWith;
    const withFirst = (id: string) => [id, ...route.filter((c) => c !== id)];
    if (task.target !== undefined)
      return {
        stage,
        target: task.target,
        source: 'task-backend',
        why: `${task.targetWhy ?? `task backend "${task.target}"`}; wins over \`with\``,
        candidates: withFirst(task.target),
      };
    if (pinned !== undefined)
      return {
        stage,
        target: pinned,
        source: 'with',
        why: `the run's \`with ${pinned}\` (the task names no backend)`,
        candidates: withFirst(pinned),
      };
    return {
      stage,
      target: route[0] ?? null,
      source: 'route',
      why: `first candidate of ${stage} route ${task.route} (no backend, no \`with\`)`,
      candidates: route,
    };
  });
}
