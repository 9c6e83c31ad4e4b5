import {
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
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

  it('reads back the round it wrote while the file is the one written, and the file once it is not', async () => {
    const dir = stateDir();
    try {
      const store = openChangeStore(dir);
      const file = join(dir, 'changes', 'g', 'a.round.json');
      const written = {
        ...round('g/a'),
        run: 'run-1',
        files: { 'src/a.ts': { size: 3, mtimeMs: 1.5, ino: 7, mode: 0o644, sha256: 'aa' } },
      };
      await store.writeRound(written);
      // What the file says, and no second parse of it.
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(written);
      expect(store.readRound('g/a')).toBe(written);
      // Another store of the same folder (another run's) reads the file: nothing is shared.
      const other = openChangeStore(dir).readRound('g/a');
      expect(other).toEqual(written);
      expect(other).not.toBe(written);

      // Replaced by hand: what the new file says.
      const edited = { ...written, before: 'att-2' };
      writeFileSync(`${file}.tmp`, JSON.stringify(edited));
      renameSync(`${file}.tmp`, file);
      expect(store.readRound('g/a')).toEqual(edited);
      // Written again, then removed by hand: no round.
      await store.writeRound(written);
      unlinkSync(file);
      expect(store.readRound('g/a')).toBeUndefined();
      // Written again, then edited in place into something that is not a round: refused.
      await store.writeRound(written);
      writeFileSync(file, '{"schema_version":1}');
      expect(() => store.readRound('g/a')).toThrow(/workspace snapshot/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps only the rounds written or read back last, and reads the others from their files', async () => {
    const dir = stateDir();
    try {
      const store = openChangeStore(dir, { keptRounds: 2 });
      const rounds = ['g/a', 'g/b', 'g/c', 'g/d'].map((task) => ({ ...round(task), run: 'r' }));
      for (const r of rounds.slice(0, 2)) await store.writeRound(r);
      expect(store.readRound('g/a')).toBe(rounds[0]); // read back last: g/b is now the oldest
      for (const r of rounds.slice(2)) await store.writeRound(r); // rounds left open
      // kept: the last two; the others are parsed from their files again
      expect(store.readRound('g/d')).toBe(rounds[3]);
      expect(store.readRound('g/c')).toBe(rounds[2]);
      for (const i of [0, 1]) {
        const read = store.readRound(rounds[i]!.task);
        expect(read).toEqual(rounds[i]);
        expect(read).not.toBe(rounds[i]);
      }
      // a kept round replaced by hand is read from its file
      const file = join(dir, 'changes', 'g', 'd.round.json');
      const edited = { ...rounds[3]!, before: 'att-2' };
      writeFileSync(`${file}.tmp`, JSON.stringify(edited));
      renameSync(`${file}.tmp`, file);
      expect(store.readRound('g/d')).toEqual(edited);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
