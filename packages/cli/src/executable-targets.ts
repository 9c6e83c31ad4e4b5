import type { Catalog, ResolvedCatalog } from '@switchyard/catalog';
import { catalogRevision, findExecutable } from '@switchyard/catalog';
import type { Problem, Stage } from '@switchyard/core';
import { STAGES } from '@switchyard/core/dry-run';

/** What the in-scope tasks of a run can reach: their routes, and the targets they pin. */
export interface TargetsInUse {
  routes: Iterable<string>;
  /** Task `target` pins and `--with`, with who asked for them (for the message). */
  pinned: Iterable<{ target: string; by: string }>;
}

/** The catalog a run uses, narrowed to executable targets, and what that found. */
export interface ExecutableCatalog {
  resolved: ResolvedCatalog;
  /** A candidate skipped because its command is not installed here. */
  warnings: Problem[];
  /** A route in use with no executable candidate left, or a pin to a missing target. */
  errors: Problem[];
}

/**
 * Missing agent CLIs do not refuse a whole run: every candidate whose `command[0]` is not
 * executable here is skipped (a warning), and only a route some in-scope task uses that is
 * left with no executable candidate (in any of its windows) is an error naming it. The
 * narrowed catalog gets its own revision (the same one when nothing was skipped).
 */
export function skipMissingTargets(
  resolved: ResolvedCatalog,
  inUse: TargetsInUse,
  opts: { env: NodeJS.ProcessEnv; cwd: string },
): ExecutableCatalog {
  const { catalog } = resolved;
  const missing = new Map<string, string>();
  for (const [id, target] of Object.entries(catalog.targets)) {
    const command = target.runtime.command[0] ?? '';
    if (!findExecutable(command, opts.env, opts.cwd)) missing.set(id, command);
  }
  const warnings: Problem[] = [];
  const errors: Problem[] = [];
  const file = resolved.source.path;
  const where = (path: string) => ({ ...(file ? { file } : {}), path });
  for (const { target, by } of inUse.pinned) {
    const command = missing.get(target);
    if (command !== undefined)
      errors.push({
        code: 'SY_CATALOG_NOT_EXECUTABLE',
        severity: 'error',
        ...where(`targets.${target}.runtime.command.0`),
        message: `${by} pins target "${target}", whose command "${command}" is not installed here`,
        hint: `install ${command} (on PATH), or remove the pin so the task's route picks an installed target`,
      });
  }
  if (missing.size === 0) return { resolved, warnings, errors };
  const routes = new Set(inUse.routes);
  const skipped = new Set<string>();
  const narrowed: Catalog['routes'] = structuredClone(catalog.routes);
  for (const stage of STAGES as readonly Stage[]) {
    for (const [routeId, route] of Object.entries(narrowed[stage])) {
      const lists = route.candidates
        ? [{ at: `routes.${stage}.${routeId}.candidates`, list: route.candidates }]
        : (route.windows ?? []).map((w, i) => ({
            at: `routes.${stage}.${routeId}.windows.${i}.candidates`,
            list: w.candidates,
          }));
      for (const { at, list } of lists) {
        const left = list.filter((id) => !missing.has(id));
        const gone = list.filter((id) => missing.has(id));
        if (left.length === list.length) continue;
        if (!routes.has(routeId)) continue; // no in-scope task uses it: left as written
        if (left.length === 0) {
          errors.push({
            code: 'SY_CATALOG_NOT_EXECUTABLE',
            severity: 'error',
            ...where(at),
            message: `route ${routeId} (${stage}) has no installed candidate: ${gone.map((id) => `${id} needs "${missing.get(id)}"`).join(', ')}`,
            hint: `install one of them (on PATH), or add an installed target to ${at} in the catalog`,
          });
          continue;
        }
        for (const id of gone) skipped.add(id);
        list.splice(0, list.length, ...left);
      }
    }
  }
  for (const id of skipped)
    warnings.push({
      code: 'SY_CATALOG_NOT_EXECUTABLE',
      severity: 'warning',
      ...where(`targets.${id}.runtime.command.0`),
      message: `target "${id}" skipped: its command "${missing.get(id)}" is not installed here`,
      hint: `install ${missing.get(id)} (on PATH) to use it; its routes run on their other candidates`,
    });
  if (skipped.size === 0) return { resolved, warnings, errors };
  const narrowedCatalog: Catalog = { ...catalog, routes: narrowed };
  return {
    resolved: { ...resolved, catalog: narrowedCatalog, revision: catalogRevision(narrowedCatalog) },
    warnings,
    errors,
  };
}
