import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { readEvents } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { createEventBus } from '../events/event-bus.js';
import { refuseStart, registerStartGuards } from './start-veto.js';
import type { DispatchContext, DispatcherOptions, TaskRuntime } from './types.js';

/** The parts of a run the start guards read: its tasks, options, bus and clock. */
function run(costBudget: DispatcherOptions['costBudget'], spentUsd: number[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'sy-start-veto-')), 'events.jsonl');
  const bus = createEventBus({ runId: 'r1', file, validate: true });
  const state = newTaskState('g/a');
  state.phase = 'review';
  spentUsd.forEach((costUsd, i) => {
    state.attempts.push({
      id: `g.a.worker.${i + 1}`,
      role: 'worker',
      planLoop: 1,
      target: 'target-a',
      attemptDir: `/tmp/attempt-${i + 1}`,
      status: 'finished',
      startedAt: new Date().toISOString(),
      result: 'success',
      usage: { costUsd },
    });
  });
  const rt = { id: 'g/a', group: 'g', state, busy: false, announced: true } as TaskRuntime;
  const ctx = {
    options: { costBudget } as DispatcherOptions,
    bus,
    tasks: new Map([[rt.id, rt]]),
    runStartedAt: 0,
    now: () => new Date('2026-12-01T10:00:00.000Z'),
  } as unknown as DispatchContext;
  return { ctx, rt, bus, file };
}

describe('start veto', () => {
  it('the cost budget refuses the next stage once passed: the task blocks with the figures', () => {
    const { ctx, rt, bus, file } = run({ maxPerTaskUsd: 0.05 }, [0.03, 0.04]);
    registerStartGuards(ctx);
    const veto = refuseStart(ctx, rt);
    bus.close();
    expect(veto).toMatchObject({
      by: 'cost-budget',
      stage: 'cost-budget',
      reason: 'cost budget passed: the task cost $0.0700, over cost.maxPerTaskUsd = $0.0500',
    });
    expect(rt.state.blocked).toMatchObject({
      stage: 'cost-budget',
      reason: veto?.reason,
      evidence: veto?.evidence,
      at: '2026-12-01T10:00:00.000Z',
    });
    expect(veto?.evidence.slice(0, 3)).toEqual([
      'budget: cost.maxPerTaskUsd = 0.05',
      'spent (task): 0.0700 USD',
      'phase when stopped: review, plan loop 1',
    ]);
    const events = readEvents(file).events;
    expect(events.map((e) => e.type)).toEqual(['task.blocked']);
    expect(events[0]).toMatchObject({ task: 'g/a', stage: 'cost-budget', reason: veto?.reason });
  });

  it('lets the stage start within the budget, and without guards', () => {
    const within = run({ maxPerTaskUsd: 0.5 }, [0.03]);
    registerStartGuards(within.ctx);
    expect(refuseStart(within.ctx, within.rt)).toBeUndefined();
    expect(within.rt.state.blocked).toBeUndefined();

    const unguarded = run({ maxPerTaskUsd: 0.05 }, [0.5]);
    expect(refuseStart(unguarded.ctx, unguarded.rt)).toBeUndefined();
  });

  it('a guard of another subscriber refuses like the budget, and its removal lifts it', () => {
    const { ctx, rt } = run(undefined, []);
    const remove = registerStartGuards(ctx);
    const off = ctx.bus.beforeStart((request) =>
      request.stage === 'review'
        ? { by: 'hold', stage: 'review', reason: 'review held by the operator', evidence: [] }
        : undefined,
    );
    expect(refuseStart(ctx, rt)?.reason).toBe('review held by the operator');
    expect(rt.state.blocked?.stage).toBe('review');
    delete rt.state.blocked;
    off();
    remove();
    expect(refuseStart(ctx, rt)).toBeUndefined();
  });
});
