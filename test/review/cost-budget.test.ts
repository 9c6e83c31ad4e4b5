import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runEngine } from '../engine/harness.js';

const usage = (costUsd: number) => ({
  result: 'done',
  usage: { inputTokens: 1000, outputTokens: 100, costUsd },
});

describe('cost budgets (in process)', { timeout: 60_000 }, () => {
  it('blocks a task once its reported cost passes cost.maxPerTaskUsd, with the figures', async () => {
    const ws = new Workspace();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, cost: { maxPerTaskUsd: 0.05 } });
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review' },
              steps: [{ review: 'Verdict: APPROVED\n' }, usage(0.01)],
            },
          ],
          steps: [{ fillChecklist: true }, usage(0.08)],
        },
      },
    });
    ws.task('g/pricey', { files: ['src/a.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const events = result.events;
    // The worker's attempt passed the cap: no review ran.
    expect(events.filter((e) => e.type === 'attempt.started').map((e) => e.role)).toEqual([
      'worker',
    ]);
    const blocked = events.find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({
      stage: 'cost-budget',
      reason: 'cost budget passed: the task cost $0.0800, over cost.maxPerTaskUsd = $0.0500',
    });
    expect(blocked?.evidence).toEqual([
      'budget: cost.maxPerTaskUsd = 0.05',
      'spent (task): 0.0800 USD',
      'phase when stopped: writeset, plan loop 1',
      'attempts of this task:',
      expect.stringMatching(/^ {2}g\.pricey\.worker\.1\.\S+ \(worker on a\): \$0\.0800$/),
    ]);
    expect(ws.exists('agent-task/archive/g/pricey')).toBe(false);
  });

  it('stops the run budget: tasks that would run after cost.maxPerRunUsd is passed block', async () => {
    const ws = new Workspace();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, cost: { maxPerRunUsd: 0.1 } });
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review' },
              steps: [{ review: 'Verdict: APPROVED\n' }, usage(0.04)],
            },
          ],
          steps: [{ fillChecklist: true }, usage(0.04)],
        },
      },
    });
    ws.task('g/first', { files: ['src/a.ts'] });
    ws.task('g/second', { files: ['src/b.ts'], dependsOn: ['first'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    // g/first: $0.08 archived; g/second's worker brings the run to $0.12: blocked.
    expect(ws.exists('agent-task/archive/g/first/complete.log')).toBe(true);
    const blocked = result.events.find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({
      task: 'g/second',
      stage: 'cost-budget',
      reason: 'cost budget passed: this run cost $0.1200, over cost.maxPerRunUsd = $0.1000',
    });
  });
});
