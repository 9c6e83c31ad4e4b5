import type { RunEvent } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { buildRetro } from './build-retro.js';
import { renderRetro } from './render-retro.js';

let clock = 0;
const at = () => new Date(Date.UTC(2026, 11, 1, 12, 0, clock++)).toISOString();
const ev = (e: Record<string, unknown>) => ({ at: at(), runId: 'r1', ...e }) as RunEvent;
const worker = (n: number, target: string) => [
  ev({
    type: 'attempt.started',
    task: 'g/t',
    role: 'worker',
    planLoop: 1,
    attempt: `w${n}`,
    target,
  }),
  ev({
    type: 'attempt.finished',
    task: 'g/t',
    role: 'worker',
    planLoop: 1,
    attempt: `w${n}`,
    target,
    result: 'success',
    exitCode: 0,
    signal: null,
    evidence: [],
    durationMs: 1000,
    attemptDir: `/ws/w${n}`,
  }),
];
const emptyDiff = () =>
  ev({
    type: 'task.isolation',
    task: 'g/t',
    step: 'writeset-violation',
    detail: 'no change was made: implement the plan by changing src/a.js',
    files: [],
  });

describe('buildRetro: a worker attempt whose result is corrected is no success', () => {
  it('empty diffs and write-set violations count as failures of the target that made them', () => {
    clock = 0;
    const events = [
      ev({ type: 'run.started' }),
      ...worker(1, 'lazy'),
      emptyDiff(),
      emptyDiff(), // checked again after a restart: still one failed attempt
      ...worker(2, 'lazy'),
      emptyDiff(),
      ...worker(3, 'lazy'),
      ev({
        type: 'task.isolation',
        task: 'g/t',
        step: 'writeset-violation',
        detail: 'changed files outside the write set: src/b.js',
        files: ['src/b.js'],
      }),
      ...worker(4, 'good'),
      ev({ type: 'task.isolation', task: 'g/t', step: 'applied', detail: 'applied', files: [] }),
    ];
    const retro = buildRetro(events);
    const lazy = retro.targets.find((g) => g.target === 'lazy');
    expect(lazy).toMatchObject({
      attempts: 3,
      succeeded: 0,
      successRate: 0,
      failureClasses: { 'empty-diff': 2, 'writeset-violated': 1 },
    });
    expect(retro.targets.find((g) => g.target === 'good')).toMatchObject({
      attempts: 1,
      succeeded: 1,
      successRate: 1,
    });
    expect(retro.tasks[0]?.failureClasses).toEqual({ 'empty-diff': 2, 'writeset-violated': 1 });
    expect(renderRetro(retro)).toContain('| lazy | 3 | 0 % (0/3) |');
  });
});
