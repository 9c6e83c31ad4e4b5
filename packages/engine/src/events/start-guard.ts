/**
 * Start guards: subscribers of the run's event bus that are asked before a task's next stage
 * starts (an agent attempt, a gate run, the archive) and may refuse it with a reason. The
 * first refusal wins; the dispatcher blocks the task with it (stage, reason and evidence go
 * to state, `task.blocked` and `status`), and nothing is spawned.
 */

/** What is about to start. */
export interface StartRequest {
  /** Task id (group/task). */
  task: string;
  /** The lifecycle stage about to run. */
  stage: string;
}

/** A guard's refusal: the stage it is charged to, why, and the figures that decided it. */
export interface StartVeto {
  /** Which guard refused (for logs and tests). */
  by: string;
  /** The stage named in the block (may differ from the request's, e.g. `cost-budget`). */
  stage: string;
  reason: string;
  evidence: string[];
}

/** Asked before every start; returns a veto to refuse it, undefined to let it go. A guard
 * that throws refuses too: the error blocks the task like any error of the stage. */
export type StartGuard = (request: StartRequest) => StartVeto | undefined;
