import type { BacklogView, SharedBacklogPort } from '@switchyard/core';

/**
 * A run on a backlog shared with dispatchers on other machines. The run works only on the
 * tasks it `take`s (each with its lease: every write carries that fence), leaves the others
 * to whoever took them, learns their end from the backlog (dependencies, claims and exit
 * follow it), and finishes its own there. Nothing here runs without `options.backlog`.
 */
export interface SharedRun {
  readonly backlog: SharedBacklogPort;
  /** Tasks this run took and has not finished in the backlog yet. */
  readonly owned: Set<string>;
  /** The backlog as last read, by task. */
  status: Map<string, BacklogView>;
  /** Tasks whose end on another machine this run has taken in already. */
  readonly settled: Set<string>;
  /** How often the run looks at the backlog without a wake-up: an expired lease sends none. */
  readonly pollMs: number;
  /** A backlog operation of the last pass failed for a passing reason: look again soon. */
  retryPass?: boolean;
  /** Set by the scheduler: wakes its loop (a backlog change on any machine, a lost lease). */
  wake?: () => void;
}
