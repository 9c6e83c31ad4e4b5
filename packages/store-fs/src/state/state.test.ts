import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttemptRecord, newTaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { openStateStore } from './state-store.js';

const stateDir = () => mkdtempSync(join(tmpdir(), 'sy-state-'));

function record(over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    id: `att-${process.pid}-${Math.random().toString(36).slice(2)}`,
    role: 'worker',
    planLoop: 1,
    target: 't1',
    attemptDir: '/tmp/x',
    status: 'starting',
    startedAt: new Date().toISOString(),
    ...over,
  };
}

describe('state store', () => {
  it('writes atomically, reads back and lists every task sorted', async () => {
    const store = openStateStore(stateDir());
    expect(store.read('g/a')).toBeUndefined();
    expect(store.list()).toEqual([]);
    const a = newTaskState('g/a');
    a.attempts.push(record());
    a.failures.worker = 3;
    await store.write(a);
    await store.write(newTaskState('f/z'));
    expect(store.read('g/a')?.failures.worker).toBe(3);
    expect(store.list().map((s) => s.task)).toEqual(['f/z', 'g/a']);
    // no temp files left behind
    expect(readdirSync(join(store.stateDir, 'tasks', 'g'))).toEqual(['a.json']);
  });

  it('keeps the last complete write when many writes race for one file', async () => {
    const store = openStateStore(stateDir());
    const writes = Array.from({ length: 50 }, (_, i) => {
      const s = newTaskState('g/a');
      s.failures.review = i;
      return store.write(s);
    });
    await Promise.all(writes);
    expect(store.read('g/a')?.failures.review).toBe(49);
  });

  it('reports a damaged state file as SY_STATE_CORRUPT with the file and field', () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'tasks', 'g'), { recursive: true });
    writeFileSync(join(dir, 'tasks', 'g', 'a.json'), '{"schema_version":1');
    const store = openStateStore(dir);
    expect(() => store.read('g/a')).toThrow(/Cannot read dispatcher state/);
    writeFileSync(
      join(dir, 'tasks', 'g', 'a.json'),
      JSON.stringify({ ...newTaskState('g/a'), planLoop: 0 }),
    );
    expect(() => store.read('g/a')).toThrow(/planLoop/);
    expect(() => store.list()).toThrow(/SY_STATE_CORRUPT|Cannot read/);
  });
});
