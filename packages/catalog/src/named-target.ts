/** A name resolved to a catalog target, or why it cannot be. */
export type NamedTarget = { target: string; why: string } | { error: string; hint: string };

/** What a name is resolved against: the catalog's targets (id → agent) and the route's
 * worker candidates now (time windows applied). */
export interface NameContext {
  agents: ReadonlyMap<string, string>;
  routeId: string;
  workerCandidates: readonly string[];
}

/** Target ids by agent identity, from a catalog's targets. */
export function agentsOf(
  targets: Readonly<Record<string, { agent: string }>>,
): Map<string, string> {
  return new Map(Object.entries(targets).map(([id, t]) => [id, t.agent]));
}

/**
 * The worker target a name chooses (`with <name>`, a plan task's `backend`): a catalog target
 * id as it is, or an agent identity (`codex`): the first worker candidate of the task's route
 * that agent serves. An agent serving no candidate of the route, or a name that is neither,
 * is an error naming what the catalog knows. `what` names the setting in messages.
 */
export function resolveNamedTarget(name: string, what: string, ctx: NameContext): NamedTarget {
  if (ctx.agents.has(name)) return { target: name, why: `${what} "${name}" (a target id)` };
  const agents = new Set(ctx.agents.values());
  if (!agents.has(name))
    return {
      error: `${what} "${name}" is neither a target id nor an agent of the catalog`,
      hint: `targets: ${[...ctx.agents.keys()].join(', ') || '(none)'}; agents: ${[...agents].join(', ') || '(none)'}`,
    };
  const target = ctx.workerCandidates.find((id) => ctx.agents.get(id) === name);
  if (target === undefined)
    return {
      error: `${what} "${name}" serves no worker candidate of route ${ctx.routeId}`,
      hint: `name a target id instead (targets of ${name}: ${[...ctx.agents]
        .filter(([, agent]) => agent === name)
        .map(([id]) => id)
        .join(', ')}), or pick a route whose candidates include it`,
    };
  return {
    target,
    why: `${what} "${name}" (an agent): first ${ctx.routeId} worker candidate it serves`,
  };
}

/**
 * The review's candidates: the route's own, without the target that did the work while the
 * route has another one (a target never reviews its own work unless it is the only choice).
 */
export function reviewCandidates(
  routeCandidates: readonly string[],
  workerTarget: string | undefined,
): string[] {
  const others = routeCandidates.filter((c) => c !== workerTarget);
  return others.length > 0 ? others : [...routeCandidates];
}

/**
 * The red-team review's candidates: the review route's targets of another agent family than
 * the worker's (none: the red-team review cannot run, which is never a silent skip).
 */
export function redTeamCandidates(
  reviewRoute: readonly string[],
  workerTarget: string | undefined,
  agents: ReadonlyMap<string, string>,
): string[] {
  const family = workerTarget === undefined ? undefined : agents.get(workerTarget);
  return reviewRoute.filter((id) => agents.get(id) !== family);
}
