// `@switchyard/catalog/dry-run`: what `switchyard run --dry-run` needs of the catalog (routing a
// task, choosing candidates, resolving a named target), on core's light `dry-run` and `errors`
// entries only: no catalog validation, JSON Schemas or core root. Same objects as the root
// entry (shared chunks).
export { CATALOG_ENV } from './catalog-env.js';
export { redTeamCandidates, resolveNamedTarget, reviewCandidates } from './named-target.js';
export { applyRouting } from './routing/route-task.js';
export { DEFAULT_ROUTING } from './routing/routing-schema.js';
export { selectCandidates } from './select.js';
