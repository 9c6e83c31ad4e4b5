import type { WorkLogRoleName } from '../lifecycle/lifecycle-table.js';

/** File name of a group's dispatcher-owned work log. */
export const WORK_LOG_FILE = 'WORK_LOG.md';

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

/** The first lines of a new work log. */
export const WORK_LOG_HEADER = (group: string): string =>
  `# Work log: ${group}\n\n` +
  'Written by the switchyard dispatcher, one row per attempt start and finish. Do not edit.\n\n' +
  '| time (UTC) | event | task artifact | plan loop | role | attempt | agent/model | result | locator |\n' +
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n';

/** Formats one row as a Markdown table line; `|` and line breaks in cells are escaped. */
export function formatWorkLogRow(row: WorkLogRow): string {
  const cells = [
    row.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    row.kind,
    `${row.task}/${row.artifact}`,
    row.maxPlanLoops ? `${row.planLoop} of ${row.maxPlanLoops}` : String(row.planLoop),
    row.role,
    row.attempt,
    row.agentModel,
    row.result,
    row.locator,
  ].map((cell) => cell.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' '));
  return `| ${cells.join(' | ')} |\n`;
}
