import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openFsReader } from './fs-reader.js';
import { openFsStore } from './fs-store.js';
import { journalLine } from './task-journal.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), 'sy-task-journal-'));
  roots.push(root);
  return root;
};
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('the task-state journal of an exclusive file store', () => {
  it('appends each write to the journal, shares one append within a tick, and compacts on close', async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const { taskJournal, tasksDir } = store.layout;
    const a = newTaskState('g/a');
    const b = newTaskState('g/b');
    expect(
      await Promise.all([store.tasks.put(a, { expected: 0 }), store.tasks.put(b, { expected: 0 })]),
    ).toEqual([1, 1]);
    expect(await store.tasks.put({ ...a, phase: 'review' }, { expected: 1 })).toBe(2);
    expect(existsSync(join(tasksDir, 'g', 'a.json'))).toBe(false);
    expect(lines(taskJournal)).toHaveLength(4); // the header and three records
    // Its own reads and a reader's see the journal.
    expect(await store.tasks.get('g/a')).toMatchObject({ version: 2, value: { phase: 'review' } });
    const reader = openFsReader({ workspace: ws });
    expect((await reader.tasks.list()).map((e) => [e.value.task, e.version])).toEqual([
      ['g/a', 2],
      ['g/b', 1],
    ]);
    // The compare-and-set stays exact.
    await expect(store.tasks.put(a, { expected: 1 })).rejects.toMatchObject({
      code: 'SY_STORE_CONFLICT',
    });
    await store.close();
    expect(existsSync(taskJournal)).toBe(false);
    expect(JSON.parse(readFileSync(join(tasksDir, 'g', 'a.json'), 'utf8'))).toMatchObject({
      task: 'g/a',
      phase: 'review',
      revision: 2,
    });
    expect(await reader.tasks.get('g/b')).toMatchObject({ version: 1 });
  });

  it("writes a finished task's state to its file", async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const a = newTaskState('g/a');
    await store.tasks.put(a, { expected: 0 });
    await store.tasks.put({ ...a, phase: 'done' }, { expected: 1 });
    expect(
      JSON.parse(readFileSync(join(store.layout.tasksDir, 'g', 'a.json'), 'utf8')),
    ).toMatchObject({
      phase: 'done',
      revision: 2,
    });
    expect(await openFsReader({ workspace: ws }).tasks.get('g/a')).toMatchObject({ version: 2 });
    await store.close();
  });

  it("the change feed notices the journal's growth", async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const reader = openFsReader({ workspace: ws });
    const a = newTaskState('g/a');
    await store.tasks.put(a, { expected: 0 });
    const first = await reader.tasks.changes(undefined);
    expect(first.changed.map((e) => [e.value.task, e.version])).toEqual([['g/a', 1]]);
    const none = await reader.tasks.changes(first.cursor);
    expect(none.changed).toEqual([]);
    await store.tasks.put({ ...a, phase: 'review' }, { expected: 1 });
    const next = await reader.tasks.changes(none.cursor);
    expect(next.changed.map((e) => [e.value.task, e.version])).toEqual([['g/a', 2]]);
    await store.close();
  });

  it('a crash between append and compaction, or mid-compaction, loses no record; a torn last line is ignored', async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const { taskJournal, tasksDir } = store.layout;
    const a = newTaskState('g/a');
    const b = newTaskState('g/b');
    await store.tasks.put(a, { expected: 0 });
    await store.tasks.put(b, { expected: 0 });
    await store.tasks.put({ ...a, phase: 'review' }, { expected: 1 });
    // Mid-compaction: one task file written from the journal, the journal still there; and a
    // write the crash tore.
    mkdirSync(join(tasksDir, 'g'), { recursive: true });
    writeFileSync(
      join(tasksDir, 'g', 'a.json'),
      `${JSON.stringify({ ...a, phase: 'review', revision: 2 })}\n`,
    );
    appendFileSync(taskJournal, journalLine('g/b', 2, { ...b, phase: 'review' }).slice(0, 40));
    const reader = openFsReader({ workspace: ws });
    expect((await reader.tasks.list()).map((e) => [e.value.task, e.version])).toEqual([
      ['g/a', 2],
      ['g/b', 1],
    ]);
    // The next run compacts what it found before its first write, then appends anew.
    const next = openFsStore({ workspace: ws, exclusive: true });
    expect(await next.tasks.put({ ...b, phase: 'review' }, { expected: 1 })).toBe(2);
    expect(JSON.parse(readFileSync(join(tasksDir, 'g', 'b.json'), 'utf8'))).toMatchObject({
      revision: 1,
    });
    expect(lines(taskJournal)).toHaveLength(2);
    expect(await reader.tasks.get('g/b')).toMatchObject({ version: 2, value: { phase: 'review' } });
    await next.close();
    expect(await reader.tasks.get('g/b')).toMatchObject({ version: 2 });
    expect(existsSync(taskJournal)).toBe(false);
  });

  it('a delete compacts first, so no journal record brings the task back', async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const a = newTaskState('g/a');
    await store.tasks.put(a, { expected: 0 });
    await store.tasks.delete('g/a', { expected: 1 });
    expect(await store.tasks.get('g/a')).toBeUndefined();
    expect(await openFsReader({ workspace: ws }).tasks.list()).toEqual([]);
    await store.close();
  });

  it('a writer that is not exclusive writes above the journal', async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const a = newTaskState('g/a');
    await store.tasks.put(a, { expected: 0 });
    await store.tasks.put(a, { expected: 1 });
    const other = openFsStore({ workspace: ws });
    await expect(other.tasks.put(a, { expected: 1 })).rejects.toMatchObject({
      code: 'SY_STORE_CONFLICT',
    });
    expect(await other.tasks.put({ ...a, phase: 'review' }, { expected: 2 })).toBe(3);
    expect(await other.tasks.get('g/a')).toMatchObject({ version: 3, value: { phase: 'review' } });
  });
});
