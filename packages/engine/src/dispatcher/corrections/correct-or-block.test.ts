import { newTaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { STAGE_FAILURE_BUDGET } from '../../selection/on-failure.js';
import { type CheckFailure, correctOrBlock } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** A task at `stage` with `failed` consecutive failures there, and the events it emits. */
function taskAt(stage: CheckFailure['stage'], failed: number) {
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const ctx = {
    now: () => new Date('2026-12-01T12:00:00Z'),
    bus: { emit: (e: { type: string }) => events.push(e) },
    options: { maxRepeatedCorrections: 0 },
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

describe('correctOrBlock: the same correction over and over stops early', () => {
  /** The worker comes back and the stage fails again: what `advance` would leave behind. */
  const limitOf = (ctx: DispatchContext, limit?: number) => {
    (ctx as { options: { maxRepeatedCorrections?: number } }).options = {
      ...(limit === undefined ? {} : { maxRepeatedCorrections: limit }),
    };
  };
  const gate = (tail: string[]): CheckFailure => ({
    stage: 'gate',
    correction: {
      source: 'gate',
      summary: 'the definition-of-done command `npm test` failed: exit code 1, expected 0.',
      evidence: tail,
      file: `/tmp/gate.${Math.random()}.log`,
    },
    blockReason: (n) => `${n} consecutive failed definition-of-done gates`,
  });

  it('the third identical empty diff blocks: "the agent repeats itself" (default 3)', () => {
    const { ctx, rt, events } = taskAt('writeset', 0);
    limitOf(ctx);
    const empty: CheckFailure = {
      stage: 'writeset',
      correction: { source: 'writeset', summary: 'no change was made', evidence: [] },
      blockReason: (n) => `${n} consecutive write-set corrections`,
    };
    for (let i = 0; i < 2; i++) {
      correctOrBlock(ctx, rt, empty);
      expect(rt.state.blocked).toBeUndefined();
      rt.state.phase = 'writeset'; // the worker ran again and the check failed again
    }
    correctOrBlock(ctx, rt, empty);
    expect(rt.state.blocked?.reason).toBe(
      'the agent repeats itself: the same writeset correction 3 times in a row (no change was made)',
    );
    expect(rt.state.failures.writeset).toBe(3);
    expect(rt.state.blocked?.consecutiveFailures).toBe(3); // the count, kept with the block
    expect(events).toMatchObject([{ type: 'task.blocked', stage: 'writeset' }]);
  });

  it('gate output that differs only in timings and colours is the same output', () => {
    const { ctx, rt } = taskAt('gate', 0);
    limitOf(ctx);
    const runs = [
      ['\u001b[31mFAIL\u001b[39m test/a.test.js > adds', 'Duration 1.32s', 'Start at 04:20:59'],
      ['FAIL test/a.test.js > adds', 'Duration 2.1s', 'Start at 04:21:30'],
      ['\u001b[31mFAIL\u001b[39m test/a.test.js > adds', 'Duration 840ms', 'Start at 04:22:02'],
    ];
    for (const [i, tail] of runs.entries()) {
      rt.state.phase = 'gate';
      correctOrBlock(ctx, rt, gate(tail));
      expect(rt.state.blocked === undefined).toBe(i < 2);
    }
    expect(rt.state.blocked?.reason).toMatch(
      /^the agent repeats itself: the same gate correction 3/,
    );
  });

  it('a different failure, or a success in between, starts the count again', () => {
    const { ctx, rt } = taskAt('gate', 0);
    limitOf(ctx);
    const fail = (tail: string) => {
      rt.state.phase = 'gate';
      correctOrBlock(ctx, rt, gate([tail]));
    };
    fail('FAIL adds');
    fail('FAIL adds');
    fail('FAIL subtracts'); // progress: another test fails now
    fail('FAIL subtracts');
    expect(rt.state.blocked).toBeUndefined();
    rt.state.failures.gate = 0; // the gate passed, the review sent the task back
    fail('FAIL subtracts');
    fail('FAIL subtracts');
    expect(rt.state.blocked).toBeUndefined();
    fail('FAIL subtracts');
    expect(rt.state.blocked?.reason).toMatch(/repeats itself/);
  });

  it('configurable: 0 leaves only the budget of 10, which stays the ceiling for any limit', () => {
    const off = taskAt('gate', 0);
    limitOf(off.ctx, 0);
    for (let i = 1; i <= STAGE_FAILURE_BUDGET; i++) {
      off.rt.state.phase = 'gate';
      correctOrBlock(off.ctx, off.rt, gate(['FAIL adds']));
      expect(off.rt.state.blocked === undefined).toBe(i < STAGE_FAILURE_BUDGET);
    }
    expect(off.rt.state.blocked?.reason).toBe('10 consecutive failed definition-of-done gates');
    expect(off.rt.state.blocked?.consecutiveFailures).toBe(STAGE_FAILURE_BUDGET);
    const high = taskAt('gate', 0);
    limitOf(high.ctx, 50);
    for (let i = 1; i <= STAGE_FAILURE_BUDGET; i++) {
      high.rt.state.phase = 'gate';
      correctOrBlock(high.ctx, high.rt, gate(['FAIL adds']));
    }
    expect(high.rt.state.blocked?.reason).toBe('10 consecutive failed definition-of-done gates');
  });
});
