import type { Catalog } from '@switchyard/catalog';

/** What route ids are, for `catalog init`'s output and the docs. */
export const ROUTE_IDS_EXPLAINED = [
  'Route ids: each task names one in its PLAN.md front matter (`route: cloud-G04`).',
  '  local-G01…G10  must keep code and prompts on this machine: local targets only',
  '  cloud-G01…G10  may use hosted models',
  '  G01…G10 are ten lanes per kind; the catalog gives them their meaning. In this catalog:',
];

/** Consecutive worker routes with the same rule, e.g. `cloud-G01…G03  cloud-complex (complex-change)`. */
export function describeRoutes(catalog: Catalog): string[] {
  const lines: string[] = [];
  for (const kind of ['local', 'cloud']) {
    let run: { from: string; to: string; label: string } | undefined;
    const flush = () => {
      if (run)
        lines.push(
          `    ${kind}-${run.from}${run.to === run.from ? '' : `…${run.to}`}`.padEnd(22) +
            run.label,
        );
    };
    for (let i = 1; i <= 10; i++) {
      const g = `G${String(i).padStart(2, '0')}`;
      const route = catalog.routes.worker[`${kind}-${g}` as keyof Catalog['routes']['worker']];
      const reasons = route?.reason_codes?.length ? ` (${route.reason_codes.join(', ')})` : '';
      const label = `${route?.rule_id ?? 'no rule id'}${reasons}${route?.windows ? ', by time window' : ''}`;
      if (run && run.label === label) run.to = g;
      else {
        flush();
        run = { from: g, to: g, label };
      }
    }
    flush();
  }
  return lines;
}
