import type { IsolationLayout } from './layout.js';
import type { IsolationStore } from './records.js';
import type { Repository } from './repository.js';
import type { TimingSink } from './timing.js';

/** What every isolation operation works on. */
export interface IsolationContext {
  repo: Repository;
  layout: IsolationLayout;
  /** The run's store: worktree records, apply journals, task states. */
  store: IsolationStore;
  /** Ignored files (or globs) copied into each new worktree (config `isolation.copy`). */
  copy?: readonly string[];
  /** Receives the apply's time per span (the isolation bench); see ./timing.ts. */
  onTiming?: TimingSink;
}
