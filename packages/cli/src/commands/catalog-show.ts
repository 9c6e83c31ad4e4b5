import { readFile } from 'node:fs/promises';
import {
  type Catalog,
  expandCatalog,
  isCompactCatalog,
  type ResolvedCatalog,
  selectCandidates,
} from '@switchyard/catalog';
import { loadProjectConfig, resolveCatalog } from '@switchyard/config';
import { ROUTE_IDS, type RouteId, STAGES, type Stage, SwitchyardError } from '@switchyard/core';
import pc from 'picocolors';
import { printJson } from '../output.js';
import { describeSource } from './catalog-summary.js';
import { renderTable } from './catalog-table.js';

interface ShowOptions {
  executionCatalog?: string;
  at?: string;
  json?: boolean;
  /** Print the catalog document in the full form. */
  expanded?: boolean;
}

/** One resolved route at an instant. */
interface RouteView {
  route: RouteId;
  candidates: string[];
  window?: { index: number; of: number; timezone: string; start: string; end: string };
  rule_id?: string;
  policy_priority?: number;
  reason_codes?: string[];
}

function parseInstant(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new SwitchyardError('SY_USAGE', `--at "${value}" is not an ISO-8601 time.`, {
      hint: 'use e.g. --at 2027-01-15T09:30:00Z or --at 2027-01-15T09:30:00-05:00',
    });
  }
  return at;
}

function routeViews(catalog: Catalog, stage: Stage, at: Date): RouteView[] {
  return ROUTE_IDS.map((route) => {
    const def = catalog.routes[stage][route];
    const selection = selectCandidates(catalog, stage, route, at);
    return {
      route,
      candidates: selection.candidates,
      ...(selection.window
        ? { window: { ...selection.window, of: def.windows?.length ?? 0 } }
        : {}),
      ...(def.rule_id ? { rule_id: def.rule_id } : {}),
      ...(def.policy_priority !== undefined ? { policy_priority: def.policy_priority } : {}),
      ...(def.reason_codes ? { reason_codes: def.reason_codes } : {}),
    };
  });
}

/** Consecutive routes that read the same collapse into one row: `cloud-G01…G03`. */
function groupRows(views: RouteView[]): string[][] {
  const rows: { first: string; last: string; cells: string[] }[] = [];
  for (const v of views) {
    const window = v.window
      ? `${v.window.start}–${v.window.end} ${v.window.timezone} (${v.window.index + 1} of ${v.window.of})`
      : pc.dim('always');
    const rule = v.rule_id
      ? `${v.rule_id}${v.policy_priority !== undefined ? ` (${v.policy_priority})` : ''}`
      : '';
    const cells = [
      v.candidates.map((c, i) => (i === 0 ? pc.bold(c) : c)).join(' → '),
      window,
      rule,
    ];
    const prev = rows.at(-1);
    if (
      prev &&
      prev.cells.join('\u0000') === cells.join('\u0000') &&
      prev.last.slice(0, 5) === v.route.slice(0, 5)
    ) {
      prev.last = v.route;
    } else {
      rows.push({ first: v.route, last: v.route, cells });
    }
  }
  return rows.map((r) => [
    r.first === r.last ? r.first : `${r.first}…${r.last.slice(-3)}`,
    ...r.cells,
  ]);
}

/** `switchyard catalog show`: the resolved routes per stage at an instant. */
export async function catalogShow(opts: ShowOptions): Promise<void> {
  const at = parseInstant(opts.at);
  const resolved = await resolveCatalog({
    cwd: process.cwd(),
    env: process.env,
    checkExecutables: false,
    ...(opts.executionCatalog ? { flagPath: opts.executionCatalog } : {}),
  });
  if (opts.expanded) return printExpanded(resolved, opts.json === true);
  const { catalog } = resolved;
  const stages = Object.fromEntries(STAGES.map((s) => [s, routeViews(catalog, s, at)])) as Record<
    Stage,
    RouteView[]
  >;
  if (opts.json) {
    printJson({
      source: resolved.source,
      revision: resolved.revision,
      at: at.toISOString(),
      targets: catalog.targets,
      stages,
    });
    return;
  }
  const targets = Object.entries(catalog.targets).map(([id, t]) => [
    pc.bold(id),
    t.agent,
    t.model,
    t.execution_class,
    t.runtime.output_format,
    t.selfcheck_required ? 'yes' : 'no',
    t.runtime.resume_command ? (t.runtime.native_session_monitor ?? 'yes') : 'no',
    t.permissions ?? pc.dim('as written'),
    t.runtime.command[0] ?? '',
  ]);
  const out = [
    `${pc.bold('Execution catalog')}  ${describeSource(resolved.source)}`,
    `${pc.bold('Revision')}           ${resolved.revision}`,
    `${pc.bold('At')}                 ${at.toISOString()} ${pc.dim('(time windows are evaluated at this instant; change with --at)')}`,
    '',
    pc.bold(`Targets (${targets.length})`),
    renderTable(
      ['ID', 'AGENT', 'MODEL', 'CLASS', 'OUTPUT', 'SELF-CHECK', 'RESUME', 'PERMISSIONS', 'COMMAND'],
      targets,
    ),
  ];
  for (const stage of STAGES) {
    out.push(
      '',
      `${pc.bold(`Stage ${stage}`)} ${pc.dim('— the first candidate runs; provider faults fail over to the next')}`,
      renderTable(['ROUTE', 'CANDIDATES', 'WINDOW', 'RULE (PRIORITY)'], groupRows(stages[stage])),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * The catalog document as written, in the full form: a compact one expanded (the form its
 * revision is computed on), a full one as it is. Read again from its source: the resolved
 * catalog has defaults filled in and relative commands anchored, which the file does not say.
 */
async function printExpanded(resolved: ResolvedCatalog, json: boolean): Promise<void> {
  const raw: unknown = resolved.source.inline
    ? (await loadProjectConfig(process.cwd())).config.executionCatalog
    : JSON.parse(await readFile(resolved.source.path ?? '', 'utf8'));
  const compact = isCompactCatalog(raw);
  const full = isCompactCatalog(raw) ? expandCatalog(raw).catalog : raw;
  if (json)
    printJson({
      source: resolved.source,
      revision: resolved.revision,
      form: compact ? 'compact' : 'full',
      catalog: full,
    });
  else printJson(full);
}
