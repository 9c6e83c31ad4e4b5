import type { WorkLogRoleName } from '../lifecycle/stages.js';

/** One START or FINISH row of a work log. */
export interface WorkLogRow {
  /** `HUMAN`: an action a human took (retry, skip, resolve, stop), from the monitor page. */
  kind: 'START' | 'FINISH' | 'HUMAN';
  /** UTC instant of the row. */
  time: Date;
  /** Task id `<group>/<task>`. */
  task: string;
  /** The task artifact the row is about, in the task folder: the plan an attempt works on
   * (`PLAN-2.md`) or the review it writes (`CODE_REVIEW-1.md`). */
  artifact: string;
  planLoop: number;
  /** The task's cap on plan loops: the cell reads `N of M` when known. */
  maxPlanLoops?: number;
  role: WorkLogRoleName | 'human';
  /** Attempt ordinal of this stage in this plan loop (1, 2, …); the attempt id is in the
   * locator path. */
  attempt: string;
  /** `agent/model` display of the selected target, or a short label for a gate. */
  agentModel: string;
  /** `running` for START; `success` or the failure class for FINISH. */
  result: string;
  /** Path of the attempt's locator.json (workspace-relative where possible). */
  locator: string;
}
