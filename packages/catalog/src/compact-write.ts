import { isDeepStrictEqual } from 'node:util';
import { ROUTE_IDS, STAGES } from '@switchyard/core';
import { expandCatalog } from './compact.js';
import { canonicalJson } from './revision.js';
import type { Catalog } from './schema.js';

type Route = Record<string, unknown>;
const KINDS = ['local', 'cloud'] as const;
const kindOf = (id: string) => (id.startsWith('local-') ? 'local' : 'cloud');

/** The route written most often among `ids` of a stage (the first such on a tie). */
function commonest(routes: Record<string, Route>, ids: readonly string[]): Route | undefined {
  const counts = new Map<string, { route: Route; n: number }>();
  for (const id of ids) {
    const route = routes[id];
    if (!route) continue;
    const key = canonicalJson(route);
    const entry = counts.get(key) ?? { route, n: 0 };
    entry.n += 1;
    counts.set(key, entry);
  }
  let best: { route: Route; n: number } | undefined;
  for (const entry of counts.values()) if (!best || entry.n > best.n) best = entry;
  return best?.route;
}

const same = (a: Route | undefined, b: Route | undefined) =>
  a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b);

/**
 * The same catalog in the compact authoring form (see `compact.ts`): for each stage and kind
 * of route its commonest route becomes a default, lifted to where the stages (and then the
 * kinds) agree, and `routes` lists only the routes that differ from their default. Expanding
 * the result gives back exactly `catalog`'s routes (checked; the full form is returned if not).
 */
export function compactCatalog(catalog: Catalog): Record<string, unknown> {
  const { routes, ...rest } = catalog;
  const mode = Object.fromEntries(
    STAGES.map((stage) => [
      stage,
      Object.fromEntries(
        KINDS.map((kind) => [
          kind,
          commonest(
            routes[stage] as Record<string, Route>,
            ROUTE_IDS.filter((id) => kindOf(id) === kind),
          ),
        ]),
      ),
    ]),
  ) as Record<string, Record<string, Route | undefined>>;
  const defaults: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const [first, ...others] = STAGES.map((stage) => mode[stage]?.[kind]);
    if (others.every((r) => same(first, r))) defaults[kind] = first;
    else
      for (const stage of STAGES) {
        const perStage = (defaults[stage] ?? {}) as Record<string, unknown>;
        perStage[kind] = mode[stage]?.[kind];
        defaults[stage] = perStage;
      }
  }
  if (same(defaults.local as Route, defaults.cloud as Route)) {
    Object.assign(defaults, defaults.local);
    delete defaults.local;
    delete defaults.cloud;
  }
  for (const stage of STAGES) {
    const perStage = defaults[stage] as Record<string, Route> | undefined;
    if (perStage && same(perStage.local, perStage.cloud)) defaults[stage] = perStage.local;
  }
  const compact: Record<string, unknown> = { ...rest, defaults, routes: {} };
  const expanded = expandCatalog(compact);
  const differing: Record<string, Record<string, Route>> = {};
  for (const stage of STAGES) {
    const written = expanded.catalog.routes as Record<string, Record<string, Route>>;
    for (const id of ROUTE_IDS) {
      const route = (routes[stage] as Record<string, Route>)[id];
      if (!route || same(route, written[stage]?.[id])) continue;
      differing[stage] = { ...differing[stage], [id]: route };
    }
  }
  compact.routes = differing;
  if (Object.keys(differing).length === 0) delete compact.routes;
  const check = expandCatalog(compact).catalog.routes;
  return isDeepStrictEqual(JSON.parse(canonicalJson(check)), JSON.parse(canonicalJson(routes)))
    ? compact
    : { ...catalog };
}
