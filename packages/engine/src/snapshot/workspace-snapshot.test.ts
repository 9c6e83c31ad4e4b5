import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedPaths, folderListings, takeSnapshot } from './workspace-snapshot.js';

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
  }, 60_000); // 1,200 files and a 3 MB one to write and hash: slow on a loaded machine
});

describe('changedPaths and permission bits', () => {
  it('reports a chmod as a change (mtime and size stay), without reading the file again', async () => {
    root = mkdtempSync(join(tmpdir(), 'sy-snapshot-'));
    writeFileSync(join(root, 'run.sh'), 'echo hi\n');
    writeFileSync(join(root, 'other.txt'), 'x');
    chmodSync(join(root, 'run.sh'), 0o644);
    const before = await takeSnapshot(root);
    expect(before['run.sh']?.mode).toBe(0o644);
    chmodSync(join(root, 'run.sh'), 0o755);
    // The recorded hash stands for the content: a mode change alone does not read it again.
    const recorded = { ...before, 'run.sh': { ...before['run.sh']!, sha256: 'recorded' } };
    const after = await takeSnapshot(root, { previous: recorded });
    expect(after['run.sh']).toMatchObject({ mode: 0o755, sha256: 'recorded' });
    expect(changedPaths(recorded, after)).toEqual(['run.sh']);
    expect(changedPaths(after, await takeSnapshot(root, { previous: after }))).toEqual([]);
    // A snapshot written before modes were recorded compares by content only.
    const { mode: _, ...withoutMode } = before['other.txt']!;
    expect(changedPaths({ ...after, 'other.txt': withoutMode }, after)).toEqual([]);
  });
});

describe('takeSnapshot with folder listings kept between walks', () => {
  it('lists again only the folders whose entries changed, and still finds every new, deleted or edited file', async () => {
    root = mkdtempSync(join(tmpdir(), 'sy-snapshot-'));
    for (const dir of ['a', 'b']) mkdirSync(join(root, dir));
    writeFileSync(join(root, 'a', 'one.txt'), 'one');
    writeFileSync(join(root, 'a', 'two.txt'), 'two');
    writeFileSync(join(root, 'b', 'three.txt'), 'three');
    const listings = folderListings();
    // A clock a minute ahead: every folder's change time has settled, so each listing is kept.
    const later = () => Date.now() + 60_000;
    const first = await takeSnapshot(root, { listings, clock: later });
    expect(Object.keys(first)).toEqual(['a/one.txt', 'a/two.txt', 'b/three.txt']);
    expect([...listings.keys()].sort()).toEqual(['', 'a', 'b']);

    // A kept listing answers while its folder is unchanged: no listing of its own is read
    // (shown by a kept listing that leaves a file out on purpose).
    listings.set('b', { ...listings.get('b')!, names: [] });
    expect(Object.keys(await takeSnapshot(root, { listings, clock: later }))).toEqual([
      'a/one.txt',
      'a/two.txt',
    ]);

    // Files created (in an existing folder and in a new one), deleted and edited in place are
    // all found: an added or removed entry moves its folder's change time.
    writeFileSync(join(root, 'b', 'four.txt'), 'four');
    mkdirSync(join(root, 'a', 'new', 'deeper'), { recursive: true });
    writeFileSync(join(root, 'a', 'new', 'deeper', 'five.txt'), 'five');
    rmSync(join(root, 'a', 'one.txt'));
    writeFileSync(join(root, 'a', 'two.txt'), 'TWO');
    const second = await takeSnapshot(root, { previous: first, listings, clock: later });
    expect(changedPaths(first, second)).toEqual([
      'a/new/deeper/five.txt',
      'a/one.txt',
      'a/two.txt',
      'b/four.txt',
    ]);
    expect(Object.keys(second)).toContain('b/three.txt');
  });

  it('keeps no listing of a folder changed within the settle time (its change time could repeat)', async () => {
    root = mkdtempSync(join(tmpdir(), 'sy-snapshot-'));
    mkdirSync(join(root, 'fresh'));
    writeFileSync(join(root, 'fresh', 'x.txt'), 'x');
    const listings = folderListings();
    // The walk starts in the same instant the folder changed.
    const changedAt = statSync(join(root, 'fresh')).ctimeMs;
    await takeSnapshot(root, { listings, clock: () => changedAt });
    expect(listings.has('fresh')).toBe(false);
    // A change in the same tick of the kernel's clock is still found on the next walk.
    writeFileSync(join(root, 'fresh', 'y.txt'), 'y');
    expect(Object.keys(await takeSnapshot(root, { listings, clock: () => changedAt }))).toEqual([
      'fresh/x.txt',
      'fresh/y.txt',
    ]);
  });
});
