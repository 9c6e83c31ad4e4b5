import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replaceFile, replaceFileSync } from './atomic-file.js';

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
