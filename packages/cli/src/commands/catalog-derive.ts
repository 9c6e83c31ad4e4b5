import { type Catalog, type CatalogTarget, STAGES } from '@switchyard/core';

/** What `deriveCatalog` kept, dropped and filled. */
export interface DerivedCatalog {
  catalog: Catalog;
  kept: string[];
  dropped: string[];
  /** `stage.route` (or `stage.route.windows.N`) lists refilled because every candidate was dropped. */
  filled: string[];
}

/**
 * Narrows a catalog to the targets `isAvailable` accepts, knowing nothing about particular
 * agents: missing candidates are dropped (order kept); a list left empty is refilled with
 * the available targets of the execution class its first candidate had, else with every
 * available target. Returns undefined when no target is available.
 */
export function deriveCatalog(
  source: Catalog,
  isAvailable: (id: string, target: CatalogTarget) => boolean,
): DerivedCatalog | undefined {
  const entries = Object.entries(source.targets);
  const kept = entries.filter(([id, t]) => isAvailable(id, t)).map(([id]) => id);
  if (kept.length === 0) return undefined;
  const keptSet = new Set(kept);
  const filled: string[] = [];
  const narrow = (ids: string[], where: string): string[] => {
    const left = ids.filter((id) => keptSet.has(id));
    if (left.length > 0) return left;
    filled.push(where);
    const wanted = source.targets[ids[0] ?? '']?.execution_class;
    const sameClass = kept.filter((id) => source.targets[id]?.execution_class === wanted);
    return sameClass.length > 0 ? sameClass : [...kept];
  };
  const routes = Object.fromEntries(
    STAGES.map((stage) => [
      stage,
      Object.fromEntries(
        Object.entries(source.routes[stage]).map(([routeId, route]) => {
          const where = `${stage}.${routeId}`;
          if (route.candidates)
            return [routeId, { ...route, candidates: narrow(route.candidates, where) }];
          const windows = (route.windows ?? []).map((w, i) => ({
            ...w,
            candidates: narrow(w.candidates, `${where}.windows.${i}`),
          }));
          return [routeId, { ...route, windows }];
        }),
      ),
    ]),
  ) as Catalog['routes'];
  const { $schema: _dropped, ...rest } = source;
  return {
    catalog: {
      ...rest,
      targets: Object.fromEntries(kept.map((id) => [id, source.targets[id]!])),
      routes,
    },
    kept,
    dropped: entries.map(([id]) => id).filter((id) => !keptSet.has(id)),
    filled,
  };
}
