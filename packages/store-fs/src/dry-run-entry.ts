// `@switchyard/store-fs/dry-run`: the by-path readers `switchyard run --dry-run` needs (task
// states, claims), on core's light `@switchyard/core/dry-run` entry only, so the dry run does
// not load the whole of core.
export { readClaims } from './claims/claim-store.js';
export { openStateStore } from './state/state-store.js';
