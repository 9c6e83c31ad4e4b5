// `@switchyard/core/dry-run`: what `switchyard run --dry-run` needs (the CLI, and the light
// `@switchyard/engine/dry-run` and `@switchyard/store-fs/dry-run` entries), without review
// parsing, prompts or plugins, so the command loads less. Same objects as the root entry
// (shared chunks): `SwitchyardError.is` and friends work across both.
export { isRouteId, type PermissionLevel, STAGES } from './catalog/constants.js';
export {
  ERROR_CODES,
  formatProblem,
  type Problem,
  type ProblemLocation,
  SwitchyardError,
  type SwitchyardErrorCode,
  type SwitchyardErrorOptions,
} from './errors.js';
export { FINAL_PHASE, PHASES, type Phase, takesAgentSlot } from './lifecycle/lifecycle-table.js';
export { sandboxForTarget } from './sandbox/sandbox-schema.js';
export { type TaskState, taskStateSchema } from './state/state-schema.js';
export type { ClaimRecord } from './store/claim-port.js';
export { stateDir } from './workspace/paths.js';
