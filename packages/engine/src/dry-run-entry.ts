// `@switchyard/engine/dry-run`: the dry run's plan, for `switchyard run --dry-run`. It loads only
// the dry-run modules and core's light `@switchyard/core/dry-run` entry, not the dispatcher.
export {
  type DryRunReport,
  type DryRunRouting,
  planDryRun,
} from './dry-run/index.js';
