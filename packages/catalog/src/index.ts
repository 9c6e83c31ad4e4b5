export {
  absoluteCommand,
  anchorRelativeCommands,
  commandBaseOf,
  isRelativeCommandPath,
} from './command-base.js';
export { compactPath, type ExpandedCatalog, expandCatalog, isCompactCatalog } from './compact.js';
export { compactCatalog } from './compact-write.js';
export { findExecutable } from './executables.js';
export { catalogJsonSchema, compactCatalogJsonSchema } from './json-schema.js';
export {
  agentsOf,
  type NameContext,
  type NamedTarget,
  redTeamCandidates,
  resolveNamedTarget,
  reviewCandidates,
} from './named-target.js';
export { applyPermissions } from './permissions.js';
export {
  CATALOG_ENV,
  type CatalogSourceKind,
  type ProjectCatalogEntry,
  type ResolveCatalogOptions,
  type ResolvedCatalog,
  resolveCatalogFrom,
} from './resolve.js';
export { canonicalJson, catalogRevision } from './revision.js';
export { applyRouting, routeTask, type TaskRouting } from './routing/route-task.js';
export {
  DEFAULT_COMPLEXITY_ROUTES,
  DEFAULT_RISK_RULES,
  DEFAULT_ROUTING,
  REVIEW_MODES,
  type RoutingConfig,
  type RoutingConfigInput,
  routingSchema,
} from './routing/routing-schema.js';
export {
  type Catalog,
  type CatalogInput,
  type CatalogRoute,
  type CatalogRuntime,
  type CatalogTarget,
  type CatalogWindow,
  catalogSchema,
  routeSchema,
  runtimeSchema,
  targetSchema,
  windowSchema,
} from './schema.js';
export { type Selection, selectCandidates } from './select.js';
export { findJsonFaults } from './strict-json.js';
export { checkArgv, checkPlaceholders, renderTemplate } from './templates.js';
export {
  type CatalogValidation,
  type ValidateCatalogOptions,
  validateCatalog,
} from './validate.js';
export {
  findWindowFault,
  isValidTimezone,
  parseClock,
  type WindowFault,
  type WindowSpec,
  windowMatches,
} from './windows.js';
