import { describe, expect, it } from 'vitest';
import type { AdmissionDecision } from '../admission/admit.js';
import { countsOf } from './run-counts.js';
import type { DispatchContext, TaskRuntime } from './types.js';

const rt = (id: string, phase: string, busy = false) =>
  [id, { id, group: id.split('/')[0], state: { phase }, busy } as unknown as TaskRuntime] as const;

describe('countsOf: the live status counts are about the run’s own tasks', () => {
  const tasks = new Map([
    rt('api/done', 'done'),
    rt('api/running', 'worker', true),
    rt('api/ready', 'worker'),
    rt('api/stuck', 'worker'),
    rt('api/after', 'worker'),
    rt('docs/done', 'done'),
    rt('docs/stuck', 'worker'),
    rt('docs/later', 'worker'),
  ]);
  const decisions: AdmissionDecision[] = [
    { id: 'api/running', status: 'active' },
    { id: 'api/ready', status: 'waiting-slot' },
    { id: 'api/stuck', status: 'blocked' },
    { id: 'api/after', status: 'dependency-blocked', waitingOn: ['api/stuck'] },
    // Another group's tasks: admission still reports them (claims, dependencies).
    { id: 'docs/stuck', status: 'blocked' },
    { id: 'docs/later', status: 'waiting-dependencies', waitingOn: ['docs/stuck'] },
  ] as AdmissionDecision[];

  it('with --task-group, blocked and waiting count only that group, like done does', () => {
    const ctx = { tasks, options: { taskGroup: 'api' } } as unknown as DispatchContext;
    const counts = countsOf(ctx, decisions, 1);
    expect(counts).toEqual({ running: 1, ready: 1, waiting: 0, blocked: 2, done: 1 });
    // They add up to the group's tasks.
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('without one, every task of the workspace', () => {
    const ctx = { tasks, options: {} } as unknown as DispatchContext;
    expect(countsOf(ctx, decisions, 1)).toEqual({
      running: 1,
      ready: 1,
      waiting: 1,
      blocked: 3,
      done: 2,
    });
  });
});
