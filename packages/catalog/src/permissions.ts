import type { PermissionArgs, Problem } from '@switchyard/core';
import type { Catalog, CatalogTarget } from './schema.js';

/**
 * The catalog as a run starts its agents: each target with `permissions` gets its agent
 * plugin's flags in `command` and `resume_command` (the revision stays the catalog's own: it
 * already holds the level). A target whose agent no plugin maps is a problem naming the fix.
 */
export function applyPermissions(
  catalog: Catalog,
  argsFor: (agent: string) => PermissionArgs | undefined,
  file?: string,
): { catalog: Catalog; problems: Problem[] } {
  const problems: Problem[] = [];
  const targets: Record<string, CatalogTarget> = {};
  for (const [id, target] of Object.entries(catalog.targets)) {
    const level = target.permissions;
    const args = level ? argsFor(target.agent) : undefined;
    if (!level) {
      targets[id] = target;
      continue;
    }
    if (!args) {
      problems.push({
        code: 'SY_CATALOG_INVALID',
        ...(file ? { file } : {}),
        path: `targets.${id}.permissions`,
        message: `target "${id}" asks for permissions "${level}", but no loaded plugin of agent "${target.agent}" knows its CLI's flags`,
        hint: `write the flags into targets.${id}.runtime.command (and resume_command) and drop "permissions", or list the agent's plugin in the project config`,
        severity: 'error',
      });
      targets[id] = target;
      continue;
    }
    const { resume_command: resume, ...runtime } = target.runtime;
    targets[id] = {
      ...target,
      runtime: {
        ...runtime,
        command: args(level, target.runtime.command),
        ...(resume ? { resume_command: args(level, resume) } : {}),
      },
    };
  }
  return { catalog: { ...catalog, targets }, problems };
}
