import type { Catalog, CatalogTarget } from '@switchyard/catalog';
import { STAGES } from '@switchyard/core';

/** What `deriveCatalog` kept, dropped and filled. */
export interface DerivedCatalog {
  catalog: Catalog;
  kept: string[];
  dropped: string[];
  /** `stage.route` (or `stage.route.windows.N`) lists refilled because every candidate was dropped. */
  filled: string[];
  /**
   * Targets kept although not available: the local targets of `local-*` routes when no local
   * target is available (a local route never gets a cloud target). Install one or edit them.
   */
  placeholders: string[];
}

/**
 * Narrows a catalog to the targets `isAvailable` accepts, knowing nothing about particular
 * agents: missing candidates are dropped (order kept); a list left empty is refilled with
 * the available targets of the execution class its first candidate had, else — on a cloud
 * route only — with every available target. A `local-*` route never gets a cloud target:
 * with no local target available it keeps its written candidates as placeholders.
 * Returns undefined when no target is available.
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
  const placeholders = new Set<string>();
  const narrow = (ids: string[], where: string, local: boolean): string[] => {
    const left = ids.filter((id) => keptSet.has(id));
    if (left.length > 0) return left;
    const wanted = local ? 'local_model' : source.targets[ids[0] ?? '']?.execution_class;
    const sameClass = kept.filter((id) => source.targets[id]?.execution_class === wanted);
    if (sameClass.length === 0 && local) {
      for (const id of ids) placeholders.add(id);
      return [...ids];
    }
    filled.push(where);
    return sameClass.length > 0 ? sameClass : [...kept];
  };
  const routes = Object.fromEntries(
    STAGES.map((stage) => [
      stage,
      Object.fromEntries(
        Object.entries(source.routes[stage]).map(([routeId, route]) => {
          const where = `${stage}.${routeId}`;
          const local = routeId.startsWith('local-');
          if (route.candidates)
            return [routeId, { ...route, candidates: narrow(route.candidates, where, local) }];
          const windows = (route.windows ?? []).map((w, i) => ({
            ...w,
            candidates: narrow(w.candidates, `${where}.windows.${i}`, local),
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
      targets: Object.fromEntries(
        [...kept, ...placeholders].map((id) => [id, source.targets[id]!]),
      ),
      routes,
    },
    kept,
    dropped: entries.map(([id]) => id).filter((id) => !keptSet.has(id) && !placeholders.has(id)),
    filled,
    placeholders: [...placeholders],
  };
}
