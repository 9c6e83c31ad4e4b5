import type { OpenWorkLogStart } from '../store/work-log-port.js';
import type { WorkLogRow } from './work-log-row.js';

/**
 * The START rows of one log's rows (in order) that have no FINISH row after them. A pair is
 * matched on every column the two rows share (task artifact, plan loop, role, attempt
 * ordinal, agent/model, locator); the plan-loop cap is left out, so a cap edited between
 * START and FINISH is the same attempt.
 */
export function openStartRows(rows: readonly WorkLogRow[]): WorkLogRow[] {
  return openStartsAcrossLogs([{ log: '', rows }]).map((open) => open.row);
}

/**
 * What every store's `WorkLogPort.openStarts` answers: the START rows of a group's logs, read
 * oldest first, that have no FINISH row after them in any of those logs. Pairing runs across
 * logs because a group's log can be archived between an attempt's START and its FINISH (on a
 * store shared with other machines, one that ends archives the log while another's attempt
 * still runs).
 */
export function openStartsAcrossLogs(
  logs: readonly { log: string; rows: readonly WorkLogRow[] }[],
): OpenWorkLogStart[] {
  const open = new Map<string, OpenWorkLogStart>();
  for (const { log, rows } of logs)
    for (const row of rows) {
      const key = [
        `${row.task}/${row.artifact}`,
        row.planLoop,
        row.role,
        row.attempt,
        row.agentModel,
        row.locator,
      ].join('\u0000');
      if (row.kind === 'START') open.set(key, { row, log });
      else if (row.kind === 'FINISH') open.delete(key);
    }
  return [...open.values()];
}
