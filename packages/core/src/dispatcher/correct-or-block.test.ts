import { describe, expect, it } from 'vitest';
import { STAGE_FAILURE_BUDGET } from '../selection/on-failure.js';
import { newTaskState } from '../state/state-schema.js';
import { type CheckFailure, correctOrBlock } from './apply-failure.js';
import type { DispatchContext, TaskRuntime } from './context.js';

/** A task at `stage` with `failed` consecutive failures there, and the events it emits. */
function taskAt(stage: CheckFailure['stage'], failed: number) {
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const ctx = {
    now: () => new Date('2026-12-01T12:00:00Z'),
    bus: { emit: (e: { type: string }) => events.push(e) },
  } as unknown as DispatchContext;
  const state = newTaskState('g/t');
  state.phase = stage;
  state.failures[stage] = failed;
  if (stage === 'writeset' || stage === 'apply')
    state.isolation = {} as NonNullable<typeof state.isolation>;
  const rt = { id: 'g/t', group: 'g', task: { writeSet: [] }, state } as unknown as TaskRuntime;
  return { ctx, rt, events };
}

const failure = (stage: CheckFailure['stage']): CheckFailure => ({
  stage,
  correction: { source: stage, summary: 'it failed', evidence: ['line 1'] },
  blockReason: (n) => `${n} in a row`,
});

describe('correctOrBlock: the budget rule of the checks after the worker', () => {
  for (const stage of ['writeset', 'gate', 'project-gates', 'apply'] as const) {
    it(`${stage}: back to the worker with the correction below the budget`, () => {
      const { ctx, rt, events } = taskAt(stage, STAGE_FAILURE_BUDGET - 2);
      correctOrBlock(ctx, rt, failure(stage));
      expect(rt.state.phase).toBe('worker');
      expect(rt.state.failures[stage]).toBe(STAGE_FAILURE_BUDGET - 1);
      expect(rt.state.correction).toMatchObject({ source: stage, summary: 'it failed' });
      expect(rt.state.blocked).toBeUndefined();
      expect(events).toEqual([]);
    });

    it(`${stage}: blocked with evidence once the budget is spent`, () => {
      const { ctx, rt, events } = taskAt(stage, STAGE_FAILURE_BUDGET - 1);
      correctOrBlock(ctx, rt, failure(stage));
      expect(rt.state.phase).toBe(stage);
      expect(rt.state.failures[stage]).toBe(STAGE_FAILURE_BUDGET);
      expect(rt.state.blocked).toMatchObject({
        stage,
        reason: `${STAGE_FAILURE_BUDGET} in a row`,
        evidence: ['line 1'],
      });
      expect(events).toMatchObject([{ type: 'task.blocked', task: 'g/t', stage }]);
    });
  }

  it('blocks with its own evidence when given', () => {
    const { ctx, rt } = taskAt('gate', STAGE_FAILURE_BUDGET - 1);
    correctOrBlock(ctx, rt, { ...failure('gate'), blockEvidence: ['command: x'] });
    expect(rt.state.blocked?.evidence).toEqual(['command: x']);
  });
});
