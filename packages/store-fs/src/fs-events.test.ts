import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
      mark: first.mark,
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

  it('tells by the mark a replacement that holds the reader position as a line end', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-fs-events-'));
    roots.push(ws);
    const store = openFsStore({ workspace: ws });
    const file = store.layout.eventsFile;
    mkdirSync(dirname(file), { recursive: true });
    const lines = (task: string, from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => admitted(task, from + i))
        .map((event) => `${JSON.stringify(event)}\n`)
        .join('');
    // Each replacement's lines are as long as the old ones, so the old position is a line end.
    const replacements = [
      [
        'removed and begun again',
        () => {
          rmSync(file);
          writeFileSync(file, lines('g/new', 1, 3));
        },
      ],
      ['rewritten in place', () => writeFileSync(file, lines('g/new', 1, 3))],
      [
        'cut after its first event in place and written on',
        () => writeFileSync(file, lines('g/old', 1, 1) + lines('g/new', 2, 3)),
      ],
    ] as const;
    for (const [how, replace] of replacements) {
      // Written by hand, not by this store: no descriptor of the store keeps the old inode.
      writeFileSync(file, lines('g/old', 1, 2));
      const seen = await store.events.read();
      expect(seen.mark).toEqual(expect.any(String));
      const inode = statSync(file).ino;
      replace();
      if (how !== 'removed and begun again') expect(statSync(file).ino, how).toBe(inode);
      expect(readFileSync(file, 'utf8')[seen.next - 1], how).toBe('\n');
      // the position alone passes: what a reader without the mark cannot tell
      expect((await store.events.read({ after: seen.next })).reset, how).toBeUndefined();
      const page = await store.events.read({ after: seen.next, mark: seen.mark });
      expect(page.reset, how).toBe(true);
      expect(page.events, how).toHaveLength(3);
      // the new log appended to: its own mark reads on without reset
      appendFileSync(file, lines('g/more', 1, 1));
      const more = await store.events.read({ after: page.next, mark: page.mark });
      expect(more.reset, how).toBeUndefined();
      expect(loops(more.events), how).toEqual(['g/more#1']);
    }
    await store.close();
  });
});
