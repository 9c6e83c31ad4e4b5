import type { ClassifierPlugin, RunEvent, TerminalEvidence } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { extractUsage } from './extract.js';
import { formatUsd, priceUsage, roundUsd } from './price.js';
import { formatCost, summarizeUsage } from './usage-totals.js';

const finished = (
  attempt: string,
  task: string,
  target: string,
  usage?: Extract<RunEvent, { type: 'attempt.finished' }>['usage'],
): RunEvent => ({
  type: 'attempt.finished',
  at: '2026-01-01T00:00:00.000Z',
  runId: 'r',
  task,
  role: 'worker',
  planLoop: 1,
  attempt,
  target,
  result: 'success',
  exitCode: 0,
  signal: null,
  evidence: [],
  durationMs: 1,
  attemptDir: `/ws/${attempt}`,
  ...(usage ? { usage } : {}),
});

describe('token and cost accounting', () => {
  it('sums per task, target and run; an attempt logged twice counts once', () => {
    const events = [
      finished('a1', 'g/a', 'claude', { inputTokens: 100, outputTokens: 20, costUsd: 0.5 }),
      finished('a1', 'g/a', 'claude', { inputTokens: 100, outputTokens: 20, costUsd: 0.5 }),
      finished('a2', 'g/a', 'codex', {
        inputTokens: 1000,
        outputTokens: 500,
        cacheReadTokens: 200,
      }),
      finished('b1', 'g/b', 'claude', { totalTokens: 50, costUsd: 0.25 }),
      finished('b2', 'g/b', 'claude'),
    ];
    const summary = summarizeUsage(events, { codex: { inputPerMTok: 1, outputPerMTok: 10 } });
    expect(summary.attempts.map((a) => a.attempt)).toEqual(['a1', 'a2', 'b1']);
    // codex: 1000*1e-6 + 500*1e-5 + 200*1e-6 (cache billed as input) = 0.0062
    expect(summary.byTarget.codex).toMatchObject({
      attempts: 1,
      totalTokens: 1700,
      costEstimated: true,
    });
    expect(summary.byTarget.codex!.costUsd).toBeCloseTo(0.0062, 10);
    expect(summary.byTask['g/a']).toMatchObject({
      attempts: 2,
      totalTokens: 1820,
      costEstimated: true,
    });
    expect(summary.byTask['g/a']!.costUsd).toBeCloseTo(0.5062, 10);
    expect(summary.byTask['g/b']).toMatchObject({
      attempts: 1,
      totalTokens: 50,
      costUsd: 0.25,
      costEstimated: false,
    });
    expect(summary.run).toMatchObject({ attempts: 3, totalTokens: 1870, unpriced: 0 });
    expect(formatCost(summary.run)).toBe('$0.756 (est.)');
  });

  it('sums carry no binary float noise (JSON prints 0.00336, not 0.0033599999999999997)', () => {
    const costs = [0.00112, 0.00112, 0.00112];
    expect(costs.reduce((a, b) => a + b, 0)).not.toBe(0.00336); // what a plain sum gives
    const summary = summarizeUsage(
      costs.map((costUsd, i) => finished(`a${i}`, 'g/t', 'x', { costUsd })),
    );
    expect(summary.run.costUsd).toBe(0.00336);
    expect(JSON.stringify(summary.byTask['g/t'])).toContain('"costUsd":0.00336');
    // An estimate from prices is as clean (the plain products give 0.0037710000000000005).
    const price = { inputPerMTok: 3, outputPerMTok: 15 };
    expect(priceUsage({ inputTokens: 7, outputTokens: 250 }, price).costUsd).toBe(0.003771);
  });

  it('people read costs to a tenth of a cent; JSON keeps the millionths', () => {
    expect(formatUsd(0.00336)).toBe('$0.003');
    expect(formatUsd(0.0035)).toBe('$0.004');
    expect(formatUsd(12.3456)).toBe('$12.346');
    expect(formatUsd(0)).toBe('$0.000');
    expect(formatUsd(0.0003)).toBe('<$0.001'); // spent, but less than shown: never "$0.000"
    expect(formatCost({ costUsd: 0.0033599999999999997, costEstimated: true })).toBe(
      '$0.003 (est.)',
    );
    expect(roundUsd(0.0033599999999999997)).toBe(0.00336);
  });

  it('tokens without a cost or price stay unpriced, never guessed', () => {
    const summary = summarizeUsage([finished('x', 'g/x', 'gemini', { totalTokens: 15 })]);
    expect(summary.run).toMatchObject({
      totalTokens: 15,
      costUsd: 0,
      unpriced: 1,
      costEstimated: false,
    });
    expect(
      priceUsage({ inputTokens: 5, costUsd: 1 }, { inputPerMTok: 9, outputPerMTok: 9 }),
    ).toEqual({
      inputTokens: 5,
      costUsd: 1,
    });
  });

  it('takes the first classifier hook that recognises the evidence; a throwing hook is skipped', () => {
    const evidence = {
      agent: 'a',
      lastEvent: { type: 'result', n: 7 },
    } as unknown as TerminalEvidence;
    const plugin = (usage: ClassifierPlugin['usage']): ClassifierPlugin => ({
      kind: 'classifier',
      meta: { name: 'p' },
      agents: '*',
      classify: () => undefined,
      ...(usage ? { usage } : {}),
    });
    const chain = [
      plugin(undefined),
      plugin(() => {
        throw new Error('broken');
      }),
      plugin(() => ({ inputTokens: -1 })),
      plugin((e) => ({ outputTokens: Number(e.lastEvent?.n) })),
    ];
    expect(extractUsage(evidence, chain)).toEqual({ outputTokens: 7 });
    expect(extractUsage(evidence, [plugin(() => ({}))])).toBeUndefined();
  });
});
