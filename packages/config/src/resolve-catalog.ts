import {
  type ResolveCatalogOptions,
  type ResolvedCatalog,
  resolveCatalogFrom,
} from '@switchyard/catalog';
import { loadProjectConfig } from './load.js';

/**
 * Resolves, reads and fully validates the execution catalog. Order: `flagPath` >
 * AGENT_TASK_EXECUTION_CATALOG > project config `executionCatalog` (path relative to the
 * config file, or inline) > the bundled default. Throws SY_CATALOG_* with `.problems`.
 * The project config is loaded only when neither flag nor environment names a catalog.
 */
export function resolveCatalog(opts: ResolveCatalogOptions): Promise<ResolvedCatalog> {
  return resolveCatalogFrom(opts, async () => {
    const { config, filepath } = await loadProjectConfig(opts.cwd);
    return { executionCatalog: config.executionCatalog, filepath };
  });
}
