import { formatWorkLogRow, type WorkLogRow } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { startsWithoutFinish } from './completion-facts.js';

const row = (kind: 'START' | 'FINISH', attempt: string): string =>
  formatWorkLogRow({
    kind,
    time: new Date(0),
    task: 'g/t',
    artifact: 'PLAN.md',
    planLoop: 1,
    role: 'worker',
    attempt,
    agentModel: 'agent/model|with pipe',
    result: kind === 'START' ? 'running' : 'success',
    locator: `agent-task/.switchyard/attempts/${attempt}/locator.json`,
  } satisfies WorkLogRow);

describe('startsWithoutFinish', () => {
  it('lists the attempts whose START row has no FINISH row', () => {
    const log = [
      '| time (UTC) | event | task | plan loop | role | attempt | agent/model | result | locator |\n',
      row('START', 'a1'),
      row('START', 'a2'),
      row('FINISH', 'a1'),
      row('START', 'a3'),
    ].join('');
    const locator = (id: string) => `agent-task/.switchyard/attempts/${id}/locator.json`;
    expect(startsWithoutFinish(log)).toEqual([locator('a2'), locator('a3')]);
    expect(startsWithoutFinish(log + row('FINISH', 'a2') + row('FINISH', 'a3'))).toEqual([]);
  });
});
