import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openFsStore } from './fs-store.js';

let ws: string;
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('fs task state changes', () => {
  it('a second write in the same clock tick (same inode, size and mtime) is not missed', async () => {
    ws = mkdtempSync(join(tmpdir(), 'sy-fs-changes-'));
    const group = join(ws, 'agent-task', '.switchyard', 'tasks', 'g');
    mkdirSync(group, { recursive: true });
    const file = join(group, 'a.json');
    const first = newTaskState('g/a');
    first.phase = 'worker';
    writeFileSync(file, JSON.stringify(first));
    const store = openFsStore({ workspace: ws });
    const seen = await store.tasks.changes();
    expect(seen.changed.map((s) => s.value.phase)).toEqual(['worker']);
    const { mtime, atime } = statSync(file);
    // 'review' and 'worker' have the same length: same size; mtime set back: same tick.
    writeFileSync(file, JSON.stringify({ ...first, phase: 'review' }));
    utimesSync(file, atime, mtime);
    utimesSync(group, atime, statSync(group).mtime);
    const next = await store.tasks.changes(seen.cursor);
    expect(next.changed.map((s) => s.value.phase)).toEqual(['review']);
    // read again with nothing written: no change
    expect((await store.tasks.changes(next.cursor)).changed).toEqual([]);
  });

  it('a torn record is left out, and reported once it reads', async () => {
    ws = mkdtempSync(join(tmpdir(), 'sy-fs-changes-'));
    const group = join(ws, 'agent-task', '.switchyard', 'tasks', 'g');
    mkdirSync(group, { recursive: true });
    writeFileSync(join(group, 'a.json'), '{"schema_ver');
    const store = openFsStore({ workspace: ws });
    const torn = await store.tasks.changes();
    expect(torn.changed).toEqual([]);
    writeFileSync(join(group, 'a.json'), JSON.stringify(newTaskState('g/a')));
    const mended = await store.tasks.changes(torn.cursor);
    expect(mended.changed.map((s) => s.value.task)).toEqual(['g/a']);
    expect(mended.removed).toEqual([]);
  });
});
