import type { WorkLogRow } from './work-log-row.js';

/**
 * The START rows of one log's rows (in order) that have no FINISH row after them: what every
 * store's `WorkLogPort.openStarts` answers. A pair is matched on every column the two rows
 * share (task artifact, plan loop, role, attempt ordinal, agent/model, locator); the plan-loop
 * cap is left out, so a cap edited between START and FINISH is the same attempt.
 */
export function openStartRows(rows: readonly WorkLogRow[]): WorkLogRow[] {
  const open = new Map<string, WorkLogRow>();
  for (const row of rows) {
    const key = [
      `${row.task}/${row.artifact}`,
      row.planLoop,
      row.role,
      row.attempt,
      row.agentModel,
      row.locator,
    ].join('\u0000');
    if (row.kind === 'START') open.set(key, row);
    else if (row.kind === 'FINISH') open.delete(key);
  }
  return [...open.values()];
}
