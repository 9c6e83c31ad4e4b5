import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeSpareTemps, replaceFile, replaceFileSync } from './atomic-file.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-atomic-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('replaceFile', () => {
  it('keeps the content of the last call when replacements of one file overlap, leaving no temp file', async () => {
    const file = join(tempDir(), 'state.json');
    const big = 'x'.repeat(1 << 20);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        replaceFile(file, i % 2 ? `${i}\n` : `${i}${big}\n`, { durable: i % 3 === 0 }),
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe('19\n');
    expect(readdirSync(join(file, '..'))).toEqual(['state.json']);
  });

  it('rejects when the directory is missing, leaving no temp file', async () => {
    const dir = tempDir();
    for (const durable of [true, false])
      await expect(
        replaceFile(join(dir, 'missing', 'f.json'), '{}', { durable }),
      ).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('replaceFile of a folder written often (frequent)', () => {
  const spareNames = (dir: string) =>
    readdirSync(dir).filter((n) => new RegExp(`^\\.spare\\.${process.pid}\\.\\d+\\.tmp$`).test(n));
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('writes into temp files made ahead, falls back when they are gone, and removes the rest', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    await replaceFile(file, '1\n', { durable: false, frequent: true }); // no spare yet: as before
    await until(() => spareNames(dir).length >= 4);
    const made = spareNames(dir);
    for (const name of made) expect(readFileSync(join(dir, name), 'utf8')).toBe('');
    await replaceFile(file, '2\n', { durable: false, frequent: true });
    await replaceFile(file, '3\n', { durable: true, frequent: true });
    expect(readFileSync(file, 'utf8')).toBe('3\n');
    // two spares were used (renamed over the file), none was created on this thread meanwhile
    expect(made.filter((n) => !spareNames(dir).includes(n))).toHaveLength(2);
    expect(readdirSync(dir).filter((n) => !n.startsWith('.spare.'))).toEqual(['state.json']);

    // the folder removed and made again: the spares it had are gone, a write still lands
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    await replaceFile(file, '4\n', { durable: false, frequent: true });
    expect(readFileSync(file, 'utf8')).toBe('4\n');
    await replaceFile(file, '5\n', { durable: false, frequent: true }); // makes spares again

    await until(() => spareNames(dir).length >= 4);
    removeSpareTemps(); // what exit does; spares still being made are removed when they land
    await until(() => spareNames(dir).length === 0);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('takes the temp files of a capture folder from its parent (sparesIn), never leaving one in a missing folder', async () => {
    const parent = tempDir();
    const options = { durable: false, frequent: true, sparesIn: parent };
    for (const id of ['a1', 'a2', 'a3']) {
      mkdirSync(join(parent, id));
      await replaceFile(join(parent, id, 'locator.json'), `${id}\n`, options);
      await until(() => spareNames(parent).length >= 4);
      await replaceFile(join(parent, id, 'locator.json'), `${id} ended\n`, {
        ...options,
        durable: true,
      });
      expect(readdirSync(join(parent, id))).toEqual(['locator.json']);
      expect(readFileSync(join(parent, id, 'locator.json'), 'utf8')).toBe(`${id} ended\n`);
    }
    await expect(
      replaceFile(join(parent, 'gone', 'locator.json'), '{}', options),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(join(parent, 'gone'))).toBe(false);
    removeSpareTemps(); // what exit does; spares still being made are removed when they land
    await until(() => spareNames(parent).length === 0);
    expect(readdirSync(parent).sort()).toEqual(['a1', 'a2', 'a3']);
  });
});

describe('replaceFileSync', () => {
  it('replaces a file with bytes or text, leaving no temp file', () => {
    const dir = tempDir();
    const file = join(dir, 'plans.json');
    replaceFileSync(file, Buffer.from('{"a":"—"}'));
    expect(readFileSync(file, 'utf8')).toBe('{"a":"—"}');
    replaceFileSync(file, '{}');
    expect(readFileSync(file, 'utf8')).toBe('{}');
    expect(readdirSync(dir)).toEqual(['plans.json']);
  });

  it('throws when the directory is missing, leaving no temp file', () => {
    const dir = tempDir();
    expect(() => replaceFileSync(join(dir, 'missing', 'f.json'), '{}')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('stale temp files', () => {
  it('removes those of dead writers on the first replacement in a folder, keeps live ones', async () => {
    const dir = tempDir();
    // a PID that surely ended: a child that has exited
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(join(dir, `state.json.${dead}.3.tmp`), '{"torn');
    writeFileSync(join(dir, `other.json.${process.ppid}.1.tmp`), '{"live writer');
    writeFileSync(join(dir, 'notes.tmp'), 'not ours');
    await replaceFile(join(dir, 'state.json'), '{}', { durable: false });
    expect(readdirSync(dir).sort()).toEqual([
      'notes.tmp',
      `other.json.${process.ppid}.1.tmp`,
      'state.json',
    ]);
  });
});
