import type { WorkLogRoleName, WorkLogRow } from '@switchyard/core';

/** A START row of a work log that has no FINISH row yet. */
export interface OpenStartRow {
  /** The row as written, read back (its FINISH repeats every cell but time, kind, result). */
  row: WorkLogRow;
  /** The locator cell as it stands in the file. */
  locator: string;
}

/**
 * The START rows of a work log's text that have no FINISH row. A row pair is matched on every
 * column the two rows share (task artifact, plan loop, role, attempt ordinal, agent/model,
 * locator), split on unescaped pipes only; the loop cell reads `N of M`, and a cap edited
 * between START and FINISH is the same attempt.
 */
export function openStartRows(text: string): OpenStartRow[] {
  const open = new Map<string, OpenStartRow>();
  for (const line of text.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    // ['', time, kind, artifact, loop, role, attempt, agent/model, result, locator, '']
    if (cells.length < 11) continue;
    const kind = cells[2];
    const locator = cells[9] ?? '';
    const loopCell = cells[4] ?? '';
    const loop = loopCell.replace(/ of \d+$/, '');
    const key = [cells[3], loop, ...cells.slice(5, 8), locator].join('\u0000');
    if (kind === 'START') open.set(key, { row: rowOf(cells, loopCell), locator });
    else if (kind === 'FINISH') open.delete(key);
  }
  return [...open.values()];
}

/** The row a line's cells were formatted from (`formatWorkLogRow` escaped the pipes). */
function rowOf(cells: string[], loopCell: string): WorkLogRow {
  const cell = (i: number) => (cells[i] ?? '').replace(/\\\|/g, '|');
  const artifactCell = cell(3);
  // `<group>/<task>/<artifact>`: task ids are two segments
  const parts = artifactCell.split('/');
  const [loop, cap] = loopCell.split(' of ');
  return {
    kind: 'START',
    time: new Date(cell(1)),
    task: parts.slice(0, 2).join('/'),
    artifact: parts.slice(2).join('/'),
    planLoop: Number(loop),
    ...(cap !== undefined ? { maxPlanLoops: Number(cap) } : {}),
    role: cell(5) as WorkLogRoleName,
    attempt: cell(6),
    agentModel: cell(7),
    result: cell(8),
    locator: cell(9),
  };
}
