import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openFsStore } from './index.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const admitted = (task: string, planLoop: number): RunEvent => ({
  type: 'task.admitted',
  at: '2026-12-01T00:00:00.000Z',
  runId: 'r1',
  task,
  planLoop,
});

const loops = (events: { event: RunEvent }[]) =>
  events.map((e) =>
    e.event.type === 'task.admitted' ? `${e.event.task}#${e.event.planLoop}` : '',
  );

describe('fs event log read from a position', () => {
  it('starts over and says so when the log was replaced under the reader', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-fs-events-'));
    roots.push(ws);
    const store = openFsStore({ workspace: ws });
    for (let i = 1; i <= 3; i++) await store.events.append(admitted('g/old', i));
    const first = await store.events.read();
    expect(first.reset).toBeUndefined();
    // read on from the end: nothing new, no reset
    expect(await store.events.read({ after: first.next })).toEqual({
      events: [],
      next: first.next,
      skipped: [],
    });
    const file = store.layout.eventsFile;
    // replaced by a shorter log (the state folder removed and a new run begun)
    writeFileSync(file, `${JSON.stringify(admitted('g/new', 1))}\n`);
    const shorter = await store.events.read({ after: first.next });
    expect(shorter.reset).toBe(true);
    expect(loops(shorter.events)).toEqual(['g/new#1']);
    // replaced by a longer log whose old position falls inside a line
    const longer = `${[1, 2, 3, 4].map((i) => JSON.stringify(admitted('g/newer-task', i))).join('\n')}\n`;
    writeFileSync(file, longer);
    expect(longer[shorter.next - 1]).not.toBe('\n');
    const inside = await store.events.read({ after: shorter.next });
    expect(inside.reset).toBe(true);
    expect(loops(inside.events)).toEqual([1, 2, 3, 4].map((i) => `g/newer-task#${i}`));
    // removed: nothing to read, from the start
    rmSync(file);
    expect(await store.events.read({ after: inside.next })).toEqual({
      events: [],
      next: 0,
      skipped: [],
      reset: true,
    });
    await store.close();
  });
});
