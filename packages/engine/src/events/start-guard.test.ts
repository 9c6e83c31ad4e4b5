import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEventBus } from './event-bus.js';
import type { StartRequest } from './start-guard.js';

const request: StartRequest = { task: 'g/a', stage: 'worker' };

describe('start guards of the event bus', () => {
  it('lets a start go when no guard refuses it, asking each guard once', () => {
    const bus = createEventBus({ runId: 'r1' });
    const asked: string[] = [];
    bus.beforeStart((r) => {
      asked.push(`one ${r.task} ${r.stage}`);
      return undefined;
    });
    bus.beforeStart((r) => {
      asked.push(`two ${r.task} ${r.stage}`);
      return undefined;
    });
    expect(bus.requestStart(request)).toBeUndefined();
    expect(asked).toEqual(['one g/a worker', 'two g/a worker']);
  });

  it('returns the first refusal, in registration order, and asks no later guard', () => {
    const bus = createEventBus({ runId: 'r1' });
    const asked: string[] = [];
    bus.beforeStart(() => {
      asked.push('allow');
      return undefined;
    });
    bus.beforeStart(() => {
      asked.push('hold');
      return { by: 'hold', stage: 'worker', reason: 'held for the night', evidence: ['e1'] };
    });
    bus.beforeStart(() => {
      asked.push('late');
      return { by: 'late', stage: 'worker', reason: 'never asked', evidence: [] };
    });
    expect(bus.requestStart(request)).toEqual({
      by: 'hold',
      stage: 'worker',
      reason: 'held for the night',
      evidence: ['e1'],
    });
    expect(asked).toEqual(['allow', 'hold']);
  });

  it('forgets a removed guard, and every guard on close', () => {
    const bus = createEventBus({ runId: 'r1' });
    const off = bus.beforeStart(() => ({ by: 'x', stage: 'worker', reason: 'no', evidence: [] }));
    expect(bus.requestStart(request)?.by).toBe('x');
    off();
    expect(bus.requestStart(request)).toBeUndefined();
    bus.beforeStart(() => ({ by: 'y', stage: 'worker', reason: 'no', evidence: [] }));
    bus.close();
    expect(bus.requestStart(request)).toBeUndefined();
  });

  it('a refusal by itself writes no event (the dispatcher reports it as task.blocked)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sy-guards-')), 'events.jsonl');
    const bus = createEventBus({ runId: 'r1', file });
    bus.beforeStart(() => ({ by: 'x', stage: 'worker', reason: 'no', evidence: [] }));
    bus.emit({ type: 'task.admitted', task: 'g/a', planLoop: 1 });
    bus.requestStart(request);
    bus.close();
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['task.admitted']);
  });
});
