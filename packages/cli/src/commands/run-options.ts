// type-only: live-run.js itself is loaded lazily, only for a live run
import type { LiveRunOptions } from '../live-run-options.js';

/** Every option of `switchyard run`, after parsing. */
export interface RunOptions extends LiveRunOptions {
  dryRun?: boolean;
  validatePlan?: string;
  /** YAML plans: every agent task ends with a patch artifact, the source untouched. */
  patchOnly?: boolean;
  /** Review the plans first (`switchyard plan review`); stop on a CRITICAL finding. */
  reviewPlans?: boolean;
  /** YAML plans: run the plan anew once its latest run finished. */
  again?: boolean;
}
