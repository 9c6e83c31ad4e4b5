import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEvents } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { createEventBus } from './event-bus.js';

describe('event bus', () => {
  it('stamps, validates, notifies listeners and appends JSONL that reads back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-events-'));
    const file = join(dir, 'nested', 'events.jsonl');
    const bus = createEventBus({
      runId: 'r1',
      file,
      validate: true,
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
    const seen: string[] = [];
    const off = bus.on((e) => seen.push(e.type));
    bus.emit({ type: 'task.admitted', task: 'g/a', planLoop: 1 });
    bus.emit({
      type: 'task.blocked',
      task: 'g/a',
      stage: 'worker',
      reason: '10 consecutive failures',
      evidence: ['exit 1'],
    });
    off();
    bus.emit({ type: 'task.archived', task: 'g/a', archiveDir: '/x' });
    bus.close();
    expect(seen).toEqual(['task.admitted', 'task.blocked']);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      runId: 'r1',
      type: 'task.admitted',
      task: 'g/a',
      planLoop: 1,
    });
    const { events, skippedLines } = readEvents(file);
    expect(events.map((e) => e.type)).toEqual(['task.admitted', 'task.blocked', 'task.archived']);
    expect(skippedLines).toEqual([]);
  });

  it('rejects an event that breaks the schema when validating', () => {
    const bus = createEventBus({ runId: 'r', validate: true });
    expect(() => bus.emit({ type: 'task.admitted', task: 'g/a' } as never)).toThrow();
  });

  it('skips a torn last line left by a crash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-events-'));
    const file = join(dir, 'events.jsonl');
    const bus = createEventBus({ runId: 'r', file });
    bus.emit({ type: 'task.admitted', task: 'g/a', planLoop: 1 });
    bus.close();
    appendFileSync(file, '{"type":"task.arch');
    const { events, skippedLines } = readEvents(file);
    expect(events).toHaveLength(1);
    expect(skippedLines).toEqual([2]);
    expect(readEvents(join(dir, 'missing.jsonl')).events).toEqual([]);
  });

  it('reports a persistence failure once and keeps notifying listeners', () => {
    const errors: unknown[] = [];
    const bus = createEventBus({
      runId: 'r',
      file: '/proc/version/not-a-dir/events.jsonl',
      onPersistError: (e) => errors.push(e),
    });
    let count = 0;
    bus.on(() => count++);
    bus.emit({ type: 'task.admitted', task: 'g/a', planLoop: 1 });
    expect(errors).toHaveLength(1);
    expect(count).toBe(1);
  });

  it('a symlinked events.jsonl is not appended to', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-owned-'));
    const victim = join(ws, 'victim');
    writeFileSync(victim, 'original\n');
    const file = join(ws, 'agent-task', '.switchyard', 'events.jsonl');
    mkdirSync(join(ws, 'agent-task', '.switchyard'), { recursive: true });
    symlinkSync(victim, file);
    const errors: unknown[] = [];
    const bus = createEventBus({ runId: 'r', file, onPersistError: (e) => errors.push(e) });
    bus.emit({ type: 'run.finished', exitCode: 0 } as never);
    expect(errors[0]).toMatchObject({ code: 'SY_UNSAFE_PATH' });
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });
});
