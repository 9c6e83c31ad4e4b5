import type { WorkLogRow } from '@switchyard/core';

/** File name of a group's dispatcher-owned work log. */
export const WORK_LOG_FILE = 'WORK_LOG.md';

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
