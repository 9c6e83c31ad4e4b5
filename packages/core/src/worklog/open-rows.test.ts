import { describe, expect, it } from 'vitest';
import { openStartRows } from './open-rows.js';
import type { WorkLogRow } from './work-log-row.js';

const row = (kind: 'START' | 'FINISH', attempt: string, over: Partial<WorkLogRow> = {}) =>
  ({
    kind,
    time: new Date(0),
    task: 'g/t',
    artifact: 'PLAN.md',
    planLoop: 1,
    role: 'worker',
    attempt,
    agentModel: 'agent/model',
    result: kind === 'START' ? 'running' : 'success',
    locator: `agent-task/.switchyard/attempts/${attempt}/locator.json`,
    ...over,
  }) satisfies WorkLogRow;

describe('openStartRows', () => {
  it('lists the START rows that have no FINISH row, in order', () => {
    const rows = [row('START', 'a1'), row('START', 'a2'), row('FINISH', 'a1'), row('START', 'a3')];
    expect(openStartRows(rows).map((r) => r.attempt)).toEqual(['a2', 'a3']);
    expect(openStartRows([...rows, row('FINISH', 'a3'), row('FINISH', 'a2')])).toEqual([]);
  });

  it('pairs on every shared cell but the plan-loop cap', () => {
    const start = row('START', 'a1', { maxPlanLoops: 2 });
    expect(openStartRows([start, row('FINISH', 'a1', { maxPlanLoops: 3 })])).toEqual([]);
    const others: Partial<WorkLogRow>[] = [
      { planLoop: 2 },
      { role: 'review' },
      { agentModel: 'other/model' },
      { locator: 'elsewhere' },
      { artifact: 'PLAN-2.md' },
    ];
    for (const other of others)
      expect(openStartRows([start, row('FINISH', 'a1', other)])).toEqual([start]);
  });
});
