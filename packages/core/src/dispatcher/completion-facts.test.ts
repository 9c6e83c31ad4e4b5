import { describe, expect, it } from 'vitest';
import { formatWorkLogRow, type WorkLogRow } from '../worklog/work-log.js';
import { openStarts, startsWithoutFinish } from './completion-facts.js';

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

describe('openStarts: what a START row without FINISH says the attempt ran on', () => {
  it('keeps the agent/model cell as written, pipes included, for the FINISH row to repeat', () => {
    const log = row('START', 'a1') + row('START', 'a2') + row('FINISH', 'a1');
    expect(openStarts(log)).toEqual(
      new Map([['agent-task/.switchyard/attempts/a2/locator.json', 'agent/model|with pipe']]),
    );
    // A FINISH row with that cell closes it (one naming another model would not).
    const finish = formatWorkLogRow({
      kind: 'FINISH',
      time: new Date(0),
      task: 'g/t',
      artifact: 'PLAN.md',
      planLoop: 1,
      role: 'worker',
      attempt: 'a2',
      agentModel: 'agent/model-v2',
      result: 'success',
      locator: 'agent-task/.switchyard/attempts/a2/locator.json',
    });
    expect(openStarts(log + finish).size).toBe(1);
    expect(openStarts(log + row('FINISH', 'a2')).size).toBe(0);
  });
});
