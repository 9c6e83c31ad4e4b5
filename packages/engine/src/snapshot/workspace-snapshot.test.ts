import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedPaths, takeSnapshot } from './workspace-snapshot.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('takeSnapshot', () => {
  it('lists every file and link of a workspace larger than one turn of the walk, reusing hashes of unchanged files', async () => {
    root = mkdtempSync(join(tmpdir(), 'sy-snapshot-'));
    for (const dir of ['a', 'a/deep', 'b', 'node_modules/x', 'skipped'])
      mkdirSync(join(root, dir), { recursive: true });
    // 1,200 files: the walk yields to the event loop at least twice on the way.
    for (let i = 0; i < 600; i++) writeFileSync(join(root, 'a', `f${i}.txt`), `a${i}`);
    for (let i = 0; i < 600; i++) writeFileSync(join(root, 'a/deep', `g${i}.txt`), `g${i}`);
    writeFileSync(join(root, 'b', 'big.bin'), Buffer.alloc(3 << 20, 7)); // streamed, not read whole
    writeFileSync(join(root, 'node_modules/x', 'index.js'), 'left out');
    writeFileSync(join(root, 'skipped', 'file'), 'left out');
    symlinkSync('a/f1.txt', join(root, 'link'));
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const first = await takeSnapshot(root, { skip: (p) => p === 'skipped/' });
    clearInterval(ticking);
    expect(Object.keys(first)).toHaveLength(1202);
    expect(first['a/f7.txt']?.sha256).toBe(sha('a7'));
    expect(first['a/deep/g599.txt']?.sha256).toBe(sha('g599'));
    expect(first['b/big.bin']?.sha256).toBe(
      createHash('sha256')
        .update(Buffer.alloc(3 << 20, 7))
        .digest('hex'),
    );
    expect(first.link?.sha256).toBe(sha('a/f1.txt'));
    expect(
      Object.keys(first).some((p) => p.startsWith('node_modules/') || p.startsWith('skipped/')),
    ).toBe(false);
    expect(turns).toBeGreaterThan(0);

    // An unchanged file keeps its recorded hash (not read again); a changed one is read.
    const previous = { ...first, 'a/f2.txt': { ...first['a/f2.txt']!, sha256: 'recorded' } };
    writeFileSync(join(root, 'a', 'f3.txt'), 'changed, and longer');
    const second = await takeSnapshot(root, { previous });
    expect(second['a/f2.txt']?.sha256).toBe('recorded');
    expect(changedPaths(first, second)).toEqual(['a/f2.txt', 'a/f3.txt', 'skipped/file']);

    // Several earlier snapshots: the first that has a path answers for it.
    const f1 = first['a/f1.txt']!;
    const third = await takeSnapshot(root, {
      previous: [undefined, { 'a/f1.txt': { ...f1, sha256: 'from the first' } }, first, previous],
    });
    expect(third['a/f1.txt']?.sha256).toBe('from the first');
    expect(third['a/f2.txt']?.sha256).toBe(first['a/f2.txt']?.sha256);
  });
});
