import type { Catalog } from '@switchyard/catalog';
import type { RouteId } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core';
import { DECISION_STAGES } from '@switchyard/core/lifecycle';

/** What `switchyard init` asks for: the target of each kind of work, and of review. */
export const INIT_ROLES = ['fast', 'standard', 'complex', 'review'] as const;
export type InitRole = (typeof INIT_ROLES)[number];
export type InitChoices = Partial<Record<InitRole, string>>;

/** Human question per role. */
export const ROLE_QUESTIONS: Record<InitRole, string> = {
  fast: 'Fast work (routine changes, complexity: routine)',
  standard: 'Standard work (complexity: standard)',
  complex: 'High-reasoning work (complexity: complex)',
  review: 'Reviews',
};

/** The worker route lanes of each kind of work, as in the bundled catalog and the default
 * `routing.complexity` (routine cloud-G08, standard cloud-G04, complex cloud-G01). */
export const ROLE_LANES: Record<Exclude<InitRole, 'review'>, readonly number[]> = {
  complex: [1, 2, 3],
  standard: [4, 5, 6, 7],
  fast: [8, 9, 10],
};

const lane = (kind: 'local' | 'cloud', n: number) =>
  `${kind}-G${String(n).padStart(2, '0')}` as RouteId;

type Route = Catalog['routes']['worker'][RouteId];

/** Every candidate a route may run (fixed list, or the union of its windows' lists). */
function candidatesOf(route: Route | undefined): string[] {
  if (!route) return [];
  if (route.candidates) return [...route.candidates];
  return [...new Set((route.windows ?? []).flatMap((w) => w.candidates))];
}

/** What the catalog would use for each role today (the first candidate of its lane). */
export function defaultChoices(catalog: Catalog): InitChoices {
  const first = (stage: 'worker' | 'review', n: number) =>
    candidatesOf(catalog.routes[stage][lane('cloud', n)])[0];
  const out: InitChoices = {};
  const pick = (role: InitRole, id: string | undefined) => {
    if (id) out[role] = id;
  };
  pick('fast', first('worker', ROLE_LANES.fast[0]!));
  pick('standard', first('worker', ROLE_LANES.standard[0]!));
  pick('complex', first('worker', ROLE_LANES.complex[0]!));
  pick('review', first('review', ROLE_LANES.standard[0]!));
  return out;
}

/**
 * The catalog with the chosen targets first in their lanes (the lanes' other candidates stay
 * behind them as failover). A chosen target goes into `local-*` routes only when it is a local
 * target itself: a cloud target never enters a local route. A choice the catalog does not
 * define is a usage error naming the targets it does.
 */
export function applyChoices(catalog: Catalog, choices: InitChoices): Catalog {
  const out = structuredClone(catalog);
  for (const role of INIT_ROLES) {
    const id = choices[role];
    if (id === undefined) continue;
    const target = out.targets[id];
    if (!target)
      throw new SwitchyardError(
        'SY_USAGE',
        `--${role} names target "${id}", which is not installed here.`,
        {
          hint: `Installed targets: ${Object.keys(out.targets).join(', ') || 'none'}.`,
        },
      );
    const isLocal = target.execution_class === 'local_model';
    const stages = role === 'review' ? (['review'] as const) : (['worker'] as const);
    const lanes = role === 'review' ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : ROLE_LANES[role];
    for (const stage of stages)
      for (const n of lanes)
        for (const kind of isLocal ? (['cloud', 'local'] as const) : (['cloud'] as const)) {
          const routeId = lane(kind, n);
          const routes = out.routes[stage] as Record<string, Route>;
          const route = routes[routeId];
          const rest = candidatesOf(route).filter(
            (c) =>
              c !== id && (kind === 'cloud' || out.targets[c]?.execution_class === 'local_model'),
          );
          routes[routeId] = {
            candidates: [id, ...rest],
            rule_id: `init-${kind}-${role}`,
            reason_codes: [`chosen-at-init:${role}`],
          };
        }
  }
  return out;
}

/** Every target in a local route that is not a local target (must be empty). */
export function cloudTargetsInLocalRoutes(catalog: Catalog): string[] {
  const bad: string[] = [];
  for (const stage of DECISION_STAGES)
    for (const [routeId, route] of Object.entries(catalog.routes[stage]))
      if (routeId.startsWith('local-'))
        for (const c of candidatesOf(route as Route))
          if (catalog.targets[c]?.execution_class !== 'local_model')
            bad.push(`${stage}.${routeId}: ${c}`);
  return bad;
}
