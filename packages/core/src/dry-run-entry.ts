// `@switchyard/core/dry-run`: what `switchyard run --dry-run` needs (the CLI, and the engine's own
// light `@switchyard/engine/dry-run` entry), without review parsing, prompts or plugins, so the
// command loads less. Same objects as the root entry (shared chunks): `SwitchyardError.is` and
// friends work across both.
export { type PermissionLevel, STAGES } from './catalog/constants.js';
export { readClaims } from './claims/claim-store.js';
export {
  ERROR_CODES,
  formatProblem,
  type Problem,
  type ProblemLocation,
  SwitchyardError,
  type SwitchyardErrorCode,
  type SwitchyardErrorOptions,
} from './errors.js';
export { refuseUnjudgeableTests } from './gates/tests-required.js';
export { isolationModeOf } from './isolation/mode.js';
export { encodeJsonChunks } from './json/index.js';
export { PHASES } from './lifecycle/lifecycle-table.js';
export { sandboxForTarget } from './sandbox/sandbox-schema.js';
export { sandboxProbeArgv } from './sandbox/sandbox-spec.js';
export { probeAttempt } from './state/attempt-probe.js';
export { openStateStore } from './state/state-store.js';
export type { ClaimRecord } from './store/claim-port.js';
export { loadWorkspaceAsync, type WorkspaceModel } from './workspace/load.js';
export { stateDir } from './workspace/paths.js';
export { findWorkspaceRoot, searchWorkspaceRoot } from './workspace/root.js';
