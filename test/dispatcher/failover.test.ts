import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('switchyard run: failover (fake agents printing real CLI faults, in process)', {
  timeout: 60_000,
}, () => {
  it('moves a confirmed quota error to the next candidate at once, carrying the prior evidence', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        first: { scenario: { steps: [{ say: 'starting' }, { fault: 'quota' }] } },
        second: {
          scenario: {
            cases: [
              approve,
              {
                when: { role: 'worker', attempt: 1 },
                steps: [{ print: 'boom: unexpected failure', stream: 'stderr' }, { exit: 1 }],
              },
            ],
            steps: [{ fillChecklist: true }],
          },
        },
      },
      ['first', 'second'],
      ['second'],
    );
    ws.task('g/q', { files: ['src/q.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const { events } = result;
    const failovers = events.filter((e) => e.type === 'target.failover');
    expect(failovers).toHaveLength(1);
    expect(failovers[0]).toMatchObject({
      task: 'g/q',
      stage: 'worker',
      from: 'first',
      to: 'second',
      class: 'provider-quota',
    });
    expect(result.stdout).toMatch(/failover\s+g\/q worker: first -> second \(provider-quota/);
    // The generic error on the second target kept the target: a retry, not another failover.
    const retries = events.filter((e) => e.type === 'attempt.retry-scheduled');
    expect(retries).toEqual([
      expect.objectContaining({ target: 'second', consecutiveFailures: 2 }),
    ]);
    // Failed attempts keep their evidence; the failover prompt points at the prior attempt's.
    const kept = ws.attempts();
    expect(kept).toHaveLength(2);
    const dirs = kept.map((id) => ws.path('agent-task/.switchyard/attempts', id));
    const locators = dirs.map((d) => JSON.parse(readFileSync(join(d, 'locator.json'), 'utf8')));
    const quota = locators.find((l) => l.targetId === 'first');
    expect(quota).toMatchObject({ failureClass: 'provider-quota', result: 'failure' });
    const after = dirs[locators.findIndex((l) => l.targetId === 'second')]!;
    const prompt = readFileSync(join(after, 'prompt.md'), 'utf8');
    expect(prompt.startsWith('# Dispatcher boundary')).toBe(true);
    expect(prompt).toContain('ran on target first and ended with\n`provider-quota`');
    expect(prompt).toContain(join(dirs[locators.indexOf(quota)]!, 'locator.json'));
    expect(prompt).toContain(join(dirs[locators.indexOf(quota)]!, 'stream.log'));
  });

  it('keeps the target on a generic error and retries it', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        only: {
          scenario: {
            cases: [
              approve,
              {
                when: { role: 'worker', attempt: 1 },
                steps: [{ print: 'TypeError: x is undefined', stream: 'stderr' }, { exit: 1 }],
              },
            ],
            steps: [{ fillChecklist: true }],
          },
        },
        spare: { scenario: { steps: [{ fillChecklist: true }] } },
      },
      ['only', 'spare'],
      // Reviews stay on `only` (the only review candidate), so every attempt is on it.
      ['only'],
    );
    ws.task('g/e', { files: ['src/e.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const { events } = result;
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    expect(events.filter((e) => e.type === 'attempt.started').map((e) => e.target)).toEqual([
      'only',
      'only',
      'only',
    ]);
    expect(events.find((e) => e.type === 'attempt.finished')).toMatchObject({
      result: 'generic-error',
    });
  });

  it('does not fail over when only the model prose mentions quota', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        only: {
          scenario: {
            cases: [approve],
            steps: [
              {
                say: 'The old client ignored HTTP 429: rate limit exceeded, quota exhausted. I added a backoff.',
              },
              { fillChecklist: true },
            ],
          },
        },
        spare: { scenario: { steps: [{ fillChecklist: true }] } },
      },
      ['only', 'spare'],
      ['only'],
    );
    ws.task('g/prose', { files: ['src/p.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const { events } = result;
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    expect(events.filter((e) => e.type === 'attempt.finished').map((e) => e.result)).toEqual([
      'success',
      'success',
    ]);
  });
});
