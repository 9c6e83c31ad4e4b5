import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPermissions, type ResolvedCatalog } from '@switchyard/catalog';
import type { ProjectConfig } from '@switchyard/config';
import type { ClassifierPlugin, Problem } from '@switchyard/core';
import { loadPlugins, PluginSet } from '@switchyard/runner-kit';
import { BUILTIN_PLUGINS } from './builtin-plugins.js';

/** What finds an agent's plugins (a run's `PluginSet`). */
interface AgentPlugins {
  classifiersFor(agent: string): readonly ClassifierPlugin[];
}

/**
 * The catalog as agents are started from it: every target's `permissions` level turned into
 * its CLI's flags by the first plugin of its agent that knows them (agent-specific first).
 * The revision stays the catalog's own; a target no plugin maps is a problem.
 */
export function permittedCatalog(
  resolved: ResolvedCatalog,
  plugins: AgentPlugins,
): { resolved: ResolvedCatalog; problems: Problem[] } {
  if (!Object.values(resolved.catalog.targets).some((t) => t.permissions))
    return { resolved, problems: [] };
  const applied = applyPermissions(
    resolved.catalog,
    (agent) => plugins.classifiersFor(agent).find((c) => c.permissionArgs)?.permissionArgs,
    resolved.source.path,
  );
  return { resolved: { ...resolved, catalog: applied.catalog }, problems: applied.problems };
}

/**
 * For commands that start an agent outside a run (plan review) or only check (dry run): the
 * built-in plugins and the project config's own, loaded once, then {@link permittedCatalog}.
 */
export async function permittedWithProjectPlugins(
  resolved: ResolvedCatalog,
  config: Pick<ProjectConfig, 'plugins'>,
  configFile: string | undefined,
): Promise<{ resolved: ResolvedCatalog; problems: Problem[] }> {
  if (!Object.values(resolved.catalog.targets).some((t) => t.permissions))
    return { resolved, problems: [] };
  const set = new PluginSet(
    await loadPlugins({
      entries: config.plugins,
      ...(configFile ? { configDir: dirname(configFile), configFile } : {}),
      fallbackDir: dirname(fileURLToPath(import.meta.url)),
      builtins: BUILTIN_PLUGINS,
    }),
  );
  try {
    return permittedCatalog(resolved, set);
  } finally {
    await set.dispose();
  }
}
