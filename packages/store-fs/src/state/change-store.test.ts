import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openChangeStore } from './change-store.js';

const stateDir = () => mkdtempSync(join(tmpdir(), 'sy-changes-'));

const round = (task: string) => ({
  schema_version: 1 as const,
  task,
  before: 'att-1',
  at: new Date(0).toISOString(),
  files: {},
});

describe('change store', () => {
  it('closes a round and forgets a task, files there or not', async () => {
    const dir = stateDir();
    const store = openChangeStore(dir);
    await store.writeBaseline({ schema_version: 1, task: 'g/a', files: {} });
    await store.writeRound(round('g/a'));
    expect(store.readRound('g/a')?.before).toBe('att-1');

    await store.removeRound('g/a');
    expect(store.readRound('g/a')).toBeUndefined();
    expect(store.readBaseline('g/a')?.task).toBe('g/a');
    await store.removeRound('g/a'); // already closed: nothing to do

    await store.writeRound(round('g/a'));
    await store.remove('g/a');
    expect(existsSync(join(dir, 'changes', 'g', 'a.baseline.json'))).toBe(false);
    expect(existsSync(join(dir, 'changes', 'g', 'a.round.json'))).toBe(false);
    await store.remove('g/never-recorded');
  });
});
