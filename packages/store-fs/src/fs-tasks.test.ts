import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openFsStore } from './fs-store.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), 'sy-fs-tasks-'));
  roots.push(root);
  return root;
};

describe('fs task states in an exclusive store', () => {
  it('commits puts made back to back in order, and a delete right after them leaves no file', async () => {
    const ws = workspace();
    const store = openFsStore({ workspace: ws, exclusive: true });
    const file = join(store.layout.tasksDir, 'g', 't.json');
    const state = newTaskState('g/t');
    const first = store.tasks.put(state, { expected: 0 });
    const second = store.tasks.put({ ...state, phase: 'review' }, { expected: 1 });
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ revision: 2, phase: 'review' });
    const third = store.tasks.put(state, { expected: 2 });
    const removed = store.tasks.delete('g/t', { expected: 3 });
    await Promise.all([third, removed]);
    expect(existsSync(file)).toBe(false);
    expect(await store.tasks.get('g/t')).toBeUndefined();
    await expect(store.tasks.put(state, { expected: 3 })).rejects.toMatchObject({
      code: 'SY_STORE_CONFLICT',
    });
    await store.close();
  });

  it('checks versions against its own writes: a file it never wrote is read once', async () => {
    const ws = workspace();
    const first = openFsStore({ workspace: ws });
    await first.tasks.put(newTaskState('g/t'), { expected: 0 });
    await first.close();
    const store = openFsStore({ workspace: ws, exclusive: true });
    await expect(store.tasks.put(newTaskState('g/t'), { expected: 0 })).rejects.toMatchObject({
      code: 'SY_STORE_CONFLICT',
    });
    expect(await store.tasks.put(newTaskState('g/t'), { expected: 1 })).toBe(2);
    await store.close();
  });
});
