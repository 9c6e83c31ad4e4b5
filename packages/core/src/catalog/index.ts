export {
  absoluteCommand,
  anchorRelativeCommands,
  commandBaseOf,
  isRelativeCommandPath,
} from './command-base.js';
export { compactPath, type ExpandedCatalog, expandCatalog, isCompactCatalog } from './compact.js';
export { compactCatalog } from './compact-write.js';
export {
  CATALOG_SCHEMA_VERSION,
  EXECUTION_CLASSES,
  isRouteId,
  OUTPUT_FORMATS,
  PERMISSION_LEVELS,
  type PermissionLevel,
  ROUTE_IDS,
  type RouteId,
  STAGES,
  type Stage,
  TEMPLATE_PLACEHOLDERS,
  type TemplatePlaceholder,
} from './constants.js';
export { findExecutable } from './executables.js';
export {
  catalogJsonSchema,
  compactCatalogJsonSchema,
  projectConfigJsonSchema,
} from './json-schema.js';
export { applyPermissions, type PermissionArgs } from './permissions.js';
export {
  CATALOG_ENV,
  type CatalogSourceKind,
  type ResolveCatalogOptions,
  type ResolvedCatalog,
  resolveCatalog,
} from './resolve.js';
export { canonicalJson, catalogRevision } from './revision.js';
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
export { credentialShape, expandEnvironmentValue, secretInEnvironment } from './secrets.js';
export { type Selection, selectCandidates } from './select.js';
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
