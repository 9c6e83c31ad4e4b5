// `@switchyard/core/dry-run`: what `switchyard run --dry-run` needs (the CLI, and the light
// `@switchyard/engine/dry-run` and `@switchyard/store-fs/read` entries), without review
// parsing, prompts or plugins, so the command loads less. Same objects as the root entry
// (shared chunks): `SwitchyardError.is` and friends work across both. The store's record
// schemas and its lease and version checks are here because the file store's modules, which
// its read entry shares with its root, take them from this entry. The lifecycle's vocabulary
// has its own light entry, `@switchyard/core/lifecycle`.
export { isRouteId, type PermissionLevel, STAGES } from './catalog/constants.js';
export { type Problem, SwitchyardError } from './errors.js';
export { type RunEvent, runEventSchema } from './events/event-schema.js';
export { applyJournalSchema, worktreeRecordSchema } from './isolation/schema.js';
export {
  sessionMonitorSchema,
  sessionPlanSchema,
  sessionStatusSchema,
} from './session/session-schema.js';
export { type TaskState, taskStateSchema } from './state/state-schema.js';
export type { ClaimRecord } from './store/claim-port.js';
export { parseLeaseHolder } from './store/lease-port.js';
export { fenceHolds, leaseLost, versionConflict } from './store/store-errors.js';
export { MONITOR_FILE, SESSIONS_DIR, stateDir } from './workspace/paths.js';
