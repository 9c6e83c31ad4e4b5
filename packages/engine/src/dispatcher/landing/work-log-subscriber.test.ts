import { join } from 'node:path';
import { type AttemptRecord, newTaskState, type RunEventInput } from '@switchyard/core';
import { formatWorkLogRow } from '@switchyard/store-fs';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../events/event-bus.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { feedWorkLogFromBus } from './work-log-subscriber.js';
import { WorkLogWriter } from './work-log-writer.js';

function run() {
  const workspace = '/ws';
  const store = createMemoryStore();
  const bus = createEventBus({ runId: 'r1', validate: true });
  const state = newTaskState('g/a');
  const rt = {
    id: 'g/a',
    group: 'g',
    task: { maxPlanLoops: 3 },
    state,
    busy: true,
    announced: true,
  } as unknown as TaskRuntime;
  const ctx = {
    workspace,
    bus,
    store,
    workLog: new WorkLogWriter(store.workLog),
    tasks: new Map([[rt.id, rt]]),
    now: () => new Date('2026-12-01T10:00:00.000Z'),
  } as unknown as DispatchContext;
  return { ctx, rt, bus, store };
}

function attempt(ctx: DispatchContext, rt: TaskRuntime, id: string): AttemptRecord {
  const record: AttemptRecord = {
    id,
    role: 'worker',
    planLoop: 1,
    target: 'target-a',
    attemptDir: join(ctx.workspace, 'agent-task', '.switchyard', 'attempts', id),
    status: 'finished',
    startedAt: new Date().toISOString(),
  };
  rt.state.attempts.push(record);
  return record;
}

const started = (id: string): RunEventInput => ({
  type: 'attempt.started',
  task: 'g/a',
  role: 'worker',
  planLoop: 1,
  attempt: id,
  target: 'target-a',
  agent: 'agent-x',
  model: 'model-y',
  attemptDir: `/a/${id}`,
});
const finished = (id: string, result: 'success' | 'provider-quota'): RunEventInput => ({
  type: 'attempt.finished',
  task: 'g/a',
  role: 'worker',
  planLoop: 1,
  attempt: id,
  target: 'target-a',
  result,
  exitCode: 0,
  signal: null,
  evidence: [],
  durationMs: 5,
  attemptDir: `/a/${id}`,
});

const rows = async (ctx: DispatchContext) =>
  (await ctx.store.workLog.read('g')).map((row) => formatWorkLogRow(row).trimEnd());

describe('work log fed from the bus', () => {
  it('writes the FINISH row of a finished attempt with the agent/model it started on', async () => {
    const { ctx, rt, bus } = run();
    feedWorkLogFromBus(ctx);
    attempt(ctx, rt, 'g.a.worker.1');
    const second = attempt(ctx, rt, 'g.a.worker.2');
    bus.emit(started('g.a.worker.1'));
    bus.emit(finished('g.a.worker.1', 'provider-quota'));
    second.interrupted = true;
    bus.emit(started('g.a.worker.2'));
    bus.emit(finished('g.a.worker.2', 'success'));
    expect(await ctx.workLog.flush()).toBe(true);
    expect(await rows(ctx)).toEqual([
      '| 2026-12-01T10:00:00Z | FINISH | g/a/PLAN.md | 1 of 3 | worker | 1 | agent-x/model-y | provider-quota | agent-task/.switchyard/attempts/g.a.worker.1/locator.json |',
      '| 2026-12-01T10:00:00Z | FINISH | g/a/PLAN.md | 1 of 3 | worker | 2 | agent-x/model-y | interrupted | agent-task/.switchyard/attempts/g.a.worker.2/locator.json |',
    ]);
  });

  it('writes nothing for an attempt it has no record of, nor once unsubscribed', async () => {
    const { ctx, rt, bus } = run();
    const off = feedWorkLogFromBus(ctx);
    bus.emit(finished('g.a.worker.9', 'success'));
    off();
    attempt(ctx, rt, 'g.a.worker.1');
    bus.emit(finished('g.a.worker.1', 'success'));
    expect(await ctx.workLog.flush()).toBe(true);
    expect(await rows(ctx)).toEqual([]);
  });
});
