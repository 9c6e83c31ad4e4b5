import type { Problem } from '@switchyard/core';
import { ROUTE_IDS, STAGES } from '@switchyard/core';

/**
 * The compact authoring form of a catalog: the routes that share candidates are written once.
 *
 *     { schema_version, targets,
 *       defaults: { candidates | windows, rule_id?, …,          every route of both stages
 *                   local?: {…}, cloud?: {…},                    routes of one kind
 *                   worker?: { …, local?, cloud? }, review?: {…} one stage (and kind) },
 *       routes: { worker?: { "cloud-G01": {…} }, review?: {…} } only the routes that differ }
 *
 * A route takes the first of: `routes.<stage>.<id>`, `defaults.<stage>.<kind>`,
 * `defaults.<stage>`, `defaults.<kind>`, `defaults` (each whole, never merged field by field).
 * It is expanded to the full form (every route of both stages) before anything validates or
 * hashes it, so both forms of one catalog have one revision. A document without `defaults`
 * is the full form and passes through untouched.
 */
export interface ExpandedCatalog {
  /** The full-form document (not validated yet). */
  catalog: Record<string, unknown>;
  /** `routes.<stage>.<id>` of the full form → the compact path it was taken from. */
  origins: ReadonlyMap<string, string>;
  /** Problems of the compact parts themselves (with compact paths). */
  problems: Problem[];
}

/** The fields of a route: a default is a route. */
const ROUTE_FIELDS = ['candidates', 'windows', 'rule_id', 'policy_priority', 'reason_codes'];
const KINDS = ['local', 'cloud'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when the document is written in the compact form (it has `defaults`). */
export function isCompactCatalog(raw: unknown): raw is Record<string, unknown> {
  return isObject(raw) && 'defaults' in raw;
}

/** The route fields of a default level, or undefined when it sets none. */
function routeOf(level: Record<string, unknown>): Record<string, unknown> | undefined {
  const fields = Object.entries(level).filter(([k]) => ROUTE_FIELDS.includes(k));
  return fields.length > 0 ? structuredClone(Object.fromEntries(fields)) : undefined;
}

/** Checks one default level's keys; returns it as an object (empty when malformed). */
function level(
  value: unknown,
  path: string,
  nested: readonly string[],
  problems: Problem[],
): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problems.push({
      code: 'SY_CATALOG_INVALID',
      path,
      message: 'expected an object (a route: candidates or windows, optional rule_id, …)',
      hint: 'e.g. "defaults": { "candidates": ["my-target"] }',
    });
    return {};
  }
  for (const key of Object.keys(value))
    if (!ROUTE_FIELDS.includes(key) && !nested.includes(key))
      problems.push({
        code: 'SY_CATALOG_INVALID',
        path: `${path}.${key}`,
        message: `unknown key "${key}"`,
        hint: `a default holds route fields (${ROUTE_FIELDS.join(', ')})${nested.length ? ` and ${nested.join(', ')}` : ''}`,
      });
  return value;
}

/** Expands a compact catalog to the full form (see {@link ExpandedCatalog}). */
export function expandCatalog(raw: Record<string, unknown>): ExpandedCatalog {
  const problems: Problem[] = [];
  const origins = new Map<string, string>();
  const { defaults: rawDefaults, routes: rawRoutes, ...rest } = raw;
  const top = level(rawDefaults, 'defaults', [...KINDS, ...STAGES], problems);
  const given = isObject(rawRoutes) ? rawRoutes : {};
  const routes: Record<string, unknown> = { ...given };
  for (const stage of STAGES) {
    const perStage = level(top[stage], `defaults.${stage}`, KINDS, problems);
    const stageGiven = given[stage];
    const out: Record<string, unknown> = isObject(stageGiven) ? { ...stageGiven } : {};
    if (stageGiven !== undefined && !isObject(stageGiven)) {
      routes[stage] = stageGiven; // the full validation names what is wrong with it
      continue;
    }
    for (const id of ROUTE_IDS) {
      if (id in out) {
        origins.set(`routes.${stage}.${id}`, `routes.${stage}.${id}`);
        continue;
      }
      const kind = id.startsWith('local-') ? 'local' : 'cloud';
      const candidates: [Record<string, unknown>, string][] = [
        [
          level(perStage[kind], `defaults.${stage}.${kind}`, [], problems),
          `defaults.${stage}.${kind}`,
        ],
        [perStage, `defaults.${stage}`],
        [level(top[kind], `defaults.${kind}`, [], problems), `defaults.${kind}`],
        [top, 'defaults'],
      ];
      for (const [source, path] of candidates) {
        const route = routeOf(source);
        if (!route) continue;
        out[id] = route;
        origins.set(`routes.${stage}.${id}`, path);
        break;
      }
    }
    routes[stage] = out;
  }
  // Every level is read once per route above: report each of its problems once.
  return { catalog: { ...rest, routes }, origins, problems: eachOnce(problems) };
}

/**
 * A full-form problem path (`routes.worker.cloud-G01.candidates.0`, after any prefix) on the
 * compact path it came from (`defaults.candidates.0`); other paths are the same in both forms.
 */
export function compactPath(
  path: string,
  origins: ReadonlyMap<string, string>,
  prefix?: string,
): string {
  const lead = prefix ? `${prefix}.` : '';
  if (!path.startsWith(`${lead}routes.`)) return path;
  const [stage, id, ...tail] = path.slice(lead.length + 'routes.'.length).split('.');
  const origin = origins.get(`routes.${stage}.${id}`);
  return origin ? [`${lead}${origin}`, ...tail].join('.') : path;
}

/** The problems without repeats (same code, path and message), in their order. */
export function eachOnce(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const p of problems) {
    const key = `${p.code}\0${p.path}\0${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
