import type { Problem } from '@switchyard/core';
import { ROUTE_IDS, STAGES } from '@switchyard/core';
import { commandBaseOf } from './command-base.js';
import { compactPath, eachOnce, expandCatalog, isCompactCatalog } from './compact.js';
import { findExecutable } from './executables.js';
import { issuesToProblems } from './issues.js';
import { type Catalog, catalogSchema, routeSchema, targetSchema } from './schema.js';
import { findWindowFault } from './windows.js';

/** Options of {@link validateCatalog}. */
export interface ValidateCatalogOptions {
  /** File the catalog came from, put on every problem. */
  file?: string;
  /** Prefix for every JSON path (e.g. `executionCatalog` for a catalog inline in a config). */
  pathPrefix?: string;
  /** Check that every target's `command[0]` is executable here (default true). */
  checkExecutables?: boolean;
  /** Environment whose PATH resolves commands (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Start of the year over which window coverage is proven (default now). */
  now?: Date;
  /** Directory relative command paths resolve from (default the catalog file's directory, else cwd). */
  cwd?: string;
}

/** The result of a validation: the catalog when it is valid, and every problem found. */
export interface CatalogValidation {
  catalog?: Catalog;
  problems: Problem[];
}

const YEAR_MS = 366 * 24 * 3600 * 1000;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a parsed catalog document against the whole contract and reports ALL problems:
 * schema (unknown keys, types, route coverage, templates, secrets), candidate references,
 * window coverage for the coming year, and (optionally) command executability. Cross-field
 * rules also run on the parts that are well-formed when other parts are not. A catalog in the
 * compact authoring form (`defaults`, see `compact.ts`) is expanded to the full form first,
 * and its problems are reported on the compact paths they come from (each once).
 */
export function validateCatalog(
  raw: unknown,
  opts: ValidateCatalogOptions = {},
): CatalogValidation {
  if (!isCompactCatalog(raw)) return validateFullCatalog(raw, opts);
  const expanded = expandCatalog(raw);
  const full = validateFullCatalog(expanded.catalog, opts);
  const at = (path: string) => [opts.pathPrefix, path].filter(Boolean).join('.');
  const problems = eachOnce([
    ...expanded.problems.map((p) => ({
      ...p,
      ...(opts.file ? { file: opts.file } : {}),
      ...(p.path ? { path: at(p.path) } : {}),
    })),
    ...full.problems.map((p) => {
      if (!p.path) return p;
      const path = compactPath(p.path, expanded.origins, opts.pathPrefix);
      // A route no default reached: say where the compact form takes routes from.
      return /\.?routes\.(worker|review)\.[^.]+$/.test(path) && !expanded.origins.has(path)
        ? { ...p, path, hint: COMPACT_ROUTE_HINT }
        : { ...p, path };
    }),
  ]);
  return problems.length === 0 && full.catalog ? full : { problems };
}

const COMPACT_ROUTE_HINT =
  'give every route a default: "defaults": { "candidates": [...] } (or defaults.<stage>, defaults.local / defaults.cloud), or write the route under routes.<stage>';

function validateFullCatalog(raw: unknown, opts: ValidateCatalogOptions): CatalogValidation {
  const { loc } = locator(opts);
  const problems: Problem[] = [];
  const parsed = catalogSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    problems.push(
      ...issuesToProblems(parsed.error.issues, 'SY_CATALOG_INVALID', {
        ...loc,
        ...(opts.pathPrefix ? { prefix: opts.pathPrefix } : {}),
        defaultHint: 'compare with the catalog JSON Schema (`switchyard catalog schema`)',
        schema: catalogSchema,
        keysRef: 'every key: `switchyard catalog schema`',
      }).map(routeHints),
    );
  }
  const doc = isObject(raw) ? raw : {};
  const targets = isObject(doc.targets) ? doc.targets : {};
  const routes = isObject(doc.routes) ? doc.routes : {};
  problems.push(...routeProblems(routes, targets, opts));
  if (opts.checkExecutables ?? true) problems.push(...executableProblems(targets, opts));

  return problems.length === 0 && parsed.success
    ? { catalog: parsed.data, problems }
    : { problems };
}

/** Where a problem is: the catalog file, and the path under the option's prefix. */
function locator(opts: ValidateCatalogOptions) {
  return {
    at: (path: string) => [opts.pathPrefix, path].filter(Boolean).join('.'),
    loc: opts.file ? { file: opts.file } : {},
  };
}

/**
 * Every route's candidates must be targets, and a route's time windows must cover every
 * instant of the coming year exactly once.
 */
function routeProblems(
  routes: Record<string, unknown>,
  targets: Record<string, unknown>,
  opts: ValidateCatalogOptions,
): Problem[] {
  const { at, loc } = locator(opts);
  const problems: Problem[] = [];
  const now = opts.now ?? new Date();
  const until = new Date(now.getTime() + YEAR_MS);

  for (const stage of STAGES) {
    const stageRoutes = isObject(routes[stage]) ? routes[stage] : {};
    for (const routeId of ROUTE_IDS) {
      const route = routeSchema.safeParse(stageRoutes[routeId]);
      if (!route.success) continue;
      const base = `routes.${stage}.${routeId}`;
      const lists = route.data.candidates
        ? [{ path: `${base}.candidates`, ids: route.data.candidates }]
        : (route.data.windows ?? []).map((w, i) => ({
            path: `${base}.windows.${i}.candidates`,
            ids: w.candidates,
          }));
      for (const list of lists) {
        list.ids.forEach((id, i) => {
          if (!(id in targets)) {
            problems.push({
              code: 'SY_CATALOG_INVALID',
              ...loc,
              path: at(`${list.path}.${i}`),
              message: `candidate "${id}" is not a target`,
              hint: `define targets.${id} or use one of: ${Object.keys(targets).join(', ') || '(no targets)'}`,
            });
          }
        });
      }
      if (route.data.windows) {
        const fault = findWindowFault(route.data.windows, now, until);
        if (fault) {
          problems.push({
            code: 'SY_CATALOG_INVALID',
            ...loc,
            path: at(`${base}.windows`),
            message:
              fault.kind === 'gap'
                ? `route ${stage}.${routeId}: no window is active at ${fault.at}`
                : `route ${stage}.${routeId}: windows ${fault.active.join(' and ')} overlap at ${fault.at}`,
            hint: "windows of a route must cover every instant exactly once (start inclusive, end exclusive, in each window's time zone, DST included)",
          });
        }
      }
    }
  }
  return problems;
}

/** Each well-formed target's command must be an executable here (on PATH or at its path). */
function executableProblems(
  targets: Record<string, unknown>,
  opts: ValidateCatalogOptions,
): Problem[] {
  const { at, loc } = locator(opts);
  const problems: Problem[] = [];
  const commandBase = opts.cwd ?? commandBaseOf(opts.file, process.cwd());
  for (const [id, rawTarget] of Object.entries(targets)) {
    const target = targetSchema.safeParse(rawTarget);
    if (!target.success) continue;
    const command = target.data.runtime.command[0] ?? '';
    if (!findExecutable(command, opts.env ?? process.env, commandBase)) {
      problems.push({
        code: 'SY_CATALOG_NOT_EXECUTABLE',
        ...loc,
        path: at(`targets.${id}.runtime.command.0`),
        message: `target "${id}": command "${command}" is not an executable on PATH or at that path`,
        hint: 'install the agent CLI (or fix the path); to validate on a machine without the agents use --skip-command-check',
      });
    }
  }
  return problems;
}

/**
 * Route-coverage problems get a hint that names the exact route set; a missing route, stage or
 * `routes` itself also names the compact form, where a default fills every route the catalog
 * leaves out.
 */
function routeHints(problem: Problem): Problem {
  const path = problem.path ?? '';
  if (/^(.*\.)?routes$/.test(path) && /^missing/.test(problem.message))
    return { ...problem, hint: MISSING_ROUTES_HINT };
  if (/^(.*\.)?routes\.(worker|review)(\.[^.]+)?$/.test(path) && /^missing/.test(problem.message))
    return { ...problem, hint: MISSING_ROUTE_HINT };
  if (/^(.*\.)?routes\.(worker|review)\.[^.]+$/.test(path) && /^unknown/.test(problem.message)) {
    return {
      ...problem,
      hint: 'each stage defines exactly local-G01..local-G10 and cloud-G01..cloud-G10',
    };
  }
  return problem;
}

const MISSING_ROUTE_HINT =
  'each stage defines exactly local-G01..local-G10 and cloud-G01..cloud-G10; or write the compact form: "defaults": { "candidates": [...] } fills every route, and routes.<stage> holds only those that differ (`switchyard catalog show --expanded` prints the full catalog)';

const MISSING_ROUTES_HINT =
  'add routes: its stages worker and review each define exactly local-G01..local-G10 and cloud-G01..cloud-G10; or write the compact form: "defaults": { "candidates": [...] } fills every route, so you can leave routes out (or keep in it only the routes that differ; `switchyard catalog show --expanded` prints the full catalog)';
