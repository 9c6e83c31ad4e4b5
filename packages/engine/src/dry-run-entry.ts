// `@switchyard/engine/dry-run`: the dry run's plan, for `switchyard run --dry-run`. It loads only
// the dry-run modules, admission's task view and core's light `@switchyard/core/dry-run` entry, not the dispatcher.

export { slotFreeTasks } from './admission/task-view.js';
export {
  type DryRunReport,
  type DryRunRouting,
  planDryRun,
} from './dry-run/index.js';
export { probeAttempt } from './status/attempt-probe.js';
