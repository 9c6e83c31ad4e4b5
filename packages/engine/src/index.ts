// The engine's entry: only what other packages use (the CLI, the monitor, the tests in test/).
export { worktreeBytes } from './admission/index.js';
// A human's actions on a run or a task (the monitor's buttons), through the CLI's own paths.
export { humanActionRequestSchema, performHumanAction, RunControl } from './control/index.js';
export {
  type CommandRequest,
  type CommandResult,
  type CommandRunner,
  catalogSourceLabel,
  type DispatcherOptions,
  type DispatcherPlugins,
  type DispatchResult,
  runDispatcher,
} from './dispatcher/index.js';
export {
  buildEscalation,
  liftBlock,
  openEscalations,
  type ResolveOutcome,
  resolveEscalation,
} from './escalation/index.js';
// The human label of a phase, for the CLI's run lines.
export { phaseLabel } from './lifecycle/index.js';
export { loadPromptTemplates } from './prompts/index.js';
export { buildRetro, renderRetro, runsInScope, writeRetroFile } from './retro/index.js';
export { type CatalogFacts, STAGE_FAILURE_BUDGET } from './selection/index.js';
export { sessionTaskAfter } from './session/session-tasks.js';
export {
  buildStatus,
  type DispatcherStatus,
  gatherStatus,
  readStatusFacts,
  type StatusFacts,
  type StatusReport,
} from './status/index.js';
