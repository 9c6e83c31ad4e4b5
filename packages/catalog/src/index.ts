export { CATALOG_ENV } from './catalog-env.js';
export { expandCatalog, isCompactCatalog } from './compact.js';
export { compactCatalog } from './compact-write.js';
export { findExecutable } from './executables.js';
export { catalogJsonSchema, compactCatalogJsonSchema } from './json-schema.js';
export {
  agentsOf,
  type NamedTarget,
  redTeamCandidates,
  resolveNamedTarget,
  reviewCandidates,
} from './named-target.js';
export { applyPermissions } from './permissions.js';
export { type ResolveCatalogOptions, type ResolvedCatalog, resolveCatalogFrom } from './resolve.js';
export { catalogRevision } from './revision.js';
export { applyRouting, routeTask } from './routing/route-task.js';
export {
  DEFAULT_COMPLEXITY_ROUTES,
  DEFAULT_ROUTING,
  type RoutingConfig,
  routingSchema,
} from './routing/routing-schema.js';
export { type Catalog, type CatalogRuntime, type CatalogTarget, catalogSchema } from './schema.js';
export { selectCandidates } from './select.js';
export { findJsonFaults, type JsonLocator, jsonLocator } from './strict-json.js';
export { renderTemplate } from './templates.js';
export { validateCatalog } from './validate.js';
export { findWindowFault, windowMatches } from './windows.js';
