import type { Catalog, ResolvedCatalog } from '@switchyard/catalog';
import { ROUTE_IDS, STAGES } from '@switchyard/core';

/** Coverage of a catalog: per stage routes and windowed routes, per class target counts. */
export interface CatalogCoverage {
  targets: { total: number; byClass: Record<string, number> };
  stages: Record<
    string,
    { routes: number; required: number; windowed: number; targetsUsed: string[] }
  >;
}

/** Counts what a catalog covers (for `validate` and `init` summaries). */
export function catalogCoverage(catalog: Catalog): CatalogCoverage {
  const byClass: Record<string, number> = {};
  for (const target of Object.values(catalog.targets)) {
    byClass[target.execution_class] = (byClass[target.execution_class] ?? 0) + 1;
  }
  const stages: CatalogCoverage['stages'] = {};
  for (const stage of STAGES) {
    const routes = Object.values(catalog.routes[stage]);
    const used = new Set<string>();
    for (const route of routes) {
      for (const id of route.candidates ?? []) used.add(id);
      for (const window of route.windows ?? []) for (const id of window.candidates) used.add(id);
    }
    stages[stage] = {
      routes: routes.length,
      required: ROUTE_IDS.length,
      windowed: routes.filter((r) => r.windows).length,
      targetsUsed: [...used].sort(),
    };
  }
  return { targets: { total: Object.keys(catalog.targets).length, byClass }, stages };
}

/** `flag /path/to/file` style description of a catalog source. */
export function describeSource(source: ResolvedCatalog['source']): string {
  const label = {
    flag: '--execution-catalog',
    env: 'AGENT_TASK_EXECUTION_CATALOG',
    config: source.inline ? 'project config (inline)' : 'project config',
    bundled: 'bundled default',
  }[source.kind];
  return source.path ? `${label} ${source.path}` : label;
}
