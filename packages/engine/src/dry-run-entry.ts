// `@switchyard/engine/dry-run`: the dry run's plan, for `switchyard run --dry-run`. It loads only
// the dry-run modules, admission's task view, the lifecycle table and core's light entries
// (`@switchyard/core/dry-run`, `@switchyard/core/lifecycle`), not the dispatcher.

export { slotFreeTasks } from './admission/task-view.js';
export {
  type DryRunReport,
  type DryRunRouting,
  planDryRun,
} from './dry-run/index.js';
export { probeAttempt } from './status/attempt-probe.js';
