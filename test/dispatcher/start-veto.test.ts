import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { Workspace } from './helpers.js';

const usage = (costUsd: number) => ({
  result: 'done',
  usage: { inputTokens: 1000, outputTokens: 100, costUsd },
});

// The CLI's commands run in this process (test/engine/cli-in-process.ts); the agents are processes.
describe('start guards (fake agents as real processes)', { timeout: 120_000 }, () => {
  it('the cost budget vetoes the start of the next task: nothing spawns, the reason is in events and status', async () => {
    const ws = new Workspace();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, cost: { maxPerRunUsd: 0.05 } });
    ws.catalog({
      a: {
        scenario: {
          cases: [{ when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] }],
          steps: [{ fillChecklist: true }, usage(0.08)],
        },
      },
    });
    ws.task('g/one', { files: ['src/one.ts'] });
    ws.task('g/two', { files: ['src/two.ts'] });
    // One slot: the first task's worker passes the run budget before the other may start.
    const result = await runInProcess(ws, ['--max-parallel', '1']);
    expect(result.code, result.stderr).toBe(3);

    const events = ws.events();
    const started = events.filter((e) => e.type === 'attempt.started');
    expect(started).toHaveLength(1);
    const ran = String(started[0]!.task);
    const vetoed = ran === 'g/one' ? 'g/two' : 'g/one';
    const reason = 'cost budget passed: this run cost $0.0800, over cost.maxPerRunUsd = $0.0500';

    // The vetoed task never reached its worker: no attempt, no START row, blocked with why.
    const blocked = events.find((e) => e.type === 'task.blocked' && e.task === vetoed);
    expect(blocked).toMatchObject({ stage: 'cost-budget', reason });
    expect(blocked?.evidence).toEqual([
      'budget: cost.maxPerRunUsd = 0.05',
      'spent (run): 0.0800 USD',
      'phase when stopped: worker, plan loop 1',
      'attempts of this task:',
    ]);
    expect(events.findIndex((e) => e === blocked)).toBeGreaterThan(
      events.findIndex((e) => e.type === 'attempt.finished'),
    );
    expect(ws.read('agent-task/g/WORK_LOG.md')).not.toContain(`| ${vetoed}/PLAN.md |`);
    const state = JSON.parse(ws.read(`agent-task/.switchyard/tasks/${vetoed}.json`));
    expect(state.attempts).toEqual([]);
    expect(state.blocked).toMatchObject({ stage: 'cost-budget', reason });

    const status = await cli(['status', '--workspace', ws.dir, '--json']);
    const report = JSON.parse(status.stdout) as {
      blocked: { task: string; stage: string; reason: string }[];
    };
    expect(report.blocked.find((b) => b.task === vetoed)).toMatchObject({
      stage: 'cost-budget',
      reason,
    });
    const text = await cli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toContain(vetoed);
    expect(text.stdout).toContain(reason);
  });
});
