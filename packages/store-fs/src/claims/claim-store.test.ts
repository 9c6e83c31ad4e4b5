import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openClaimStore, readClaims } from './claim-store.js';
import { acquireFileMutex } from './file-mutex.js';

let state: string;
beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'sy-claim-'));
});
afterEach(() => rmSync(state, { recursive: true, force: true }));

describe('openClaimStore', () => {
  it('claims all paths or none, keeps a task its own paths and lets it add more', async () => {
    const store = await openClaimStore(state);
    expect(await store.tryClaim('g/a', ['src/a.ts', 'src/shared.ts'])).toEqual({
      ok: true,
      paths: ['src/a.ts', 'src/shared.ts'],
    });
    expect(await store.tryClaim('g/b', ['src/b.ts', 'src/shared.ts', 'src/a.ts'])).toEqual({
      ok: false,
      conflicts: [
        { path: 'src/shared.ts', holder: 'g/a' },
        { path: 'src/a.ts', holder: 'g/a' },
      ],
    });
    expect(await store.holderOf('src/b.ts')).toBeUndefined();
    // a follow-up plan of g/a adds a path: the claim grows, the old paths stay
    expect(await store.tryClaim('g/a', ['src/a.ts', 'src/new.ts'])).toEqual({
      ok: true,
      paths: ['src/a.ts', 'src/new.ts', 'src/shared.ts'],
    });
    expect(await store.release('g/a')).toEqual(['src/a.ts', 'src/new.ts', 'src/shared.ts']);
    expect(await store.tryClaim('g/b', ['src/b.ts', 'src/shared.ts'])).toMatchObject({ ok: true });
    expect(await store.release('g/missing')).toEqual([]);
  });

  it('persists to claims.json that another store instance and readClaims see', async () => {
    const one = await openClaimStore(state);
    await one.tryClaim('g/z', ['z.ts']);
    await one.tryClaim('g/a', ['a.ts', 'b.ts']);
    const two = await openClaimStore(state);
    expect((await two.list()).map((c) => [c.taskId, c.paths])).toEqual([
      ['g/a', ['a.ts', 'b.ts']],
      ['g/z', ['z.ts']],
    ]);
    await two.release('g/z');
    expect(await one.holderOf('z.ts')).toBeUndefined(); // the first instance re-reads the changed file
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/a']);
    expect([...(await one.snapshot())]).toEqual([
      ['a.ts', 'g/a'],
      ['b.ts', 'g/a'],
    ]);
    expect(
      JSON.parse(readFileSync(join(state, 'claims', 'claims.json'), 'utf8')).schema_version,
    ).toBe(1);
  });

  it('saves the changes asked for together in one write, in order, each settled once the file holds it', async () => {
    const store = await openClaimStore(state, { exclusive: true });
    await store.tryClaim('g/a', ['a.ts']);
    const released = store.release('g/a');
    const claimed = store.tryClaim('g/b', ['a.ts', 'b.ts']);
    const refused = store.tryClaim('g/c', ['b.ts']);
    expect(await released).toEqual(['a.ts']);
    // the claim asked for after the release rode on the same write
    expect(readClaims(state).map((c) => [c.taskId, c.paths])).toEqual([['g/b', ['a.ts', 'b.ts']]]);
    expect(await claimed).toEqual({ ok: true, paths: ['a.ts', 'b.ts'] });
    expect(await refused).toEqual({ ok: false, conflicts: [{ path: 'b.ts', holder: 'g/b' }] });
    expect(await store.holderOf('a.ts')).toBe('g/b');
  });

  it('creates its folder with the first change, not when opened or read', async () => {
    const store = await openClaimStore(state);
    expect(await store.list()).toEqual([]);
    expect(await store.holderOf('a.ts')).toBeUndefined();
    expect(existsSync(store.dir)).toBe(false);
    await store.tryClaim('g/a', ['a.ts']);
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/a']);
  });

  it('reports a corrupt claims file as SY_STATE_CORRUPT with a hint', async () => {
    const store = await openClaimStore(state);
    mkdirSync(join(state, 'claims'));
    writeFileSync(join(state, 'claims', 'claims.json'), '{"schema_version":1,"tasks":');
    await expect(store.tryClaim('g/a', ['a.ts'])).rejects.toMatchObject({
      code: 'SY_STATE_CORRUPT',
      hint: expect.stringContaining('repair'),
    });
    expect(() => readClaims(state)).toThrow(/cannot be read/);
  });

  it('breaks a lock whose holder is dead and a break file whose breaker died', async () => {
    const lock = join(state, 'claims', 'claims.lock');
    const dead = JSON.stringify({
      pid: 2 ** 22 + 7,
      startToken: 'x:1',
      host: (await import('node:os')).hostname(),
      nonce: 'n1',
      acquiredAt: '',
    });
    const release = await acquireFileMutex(lock); // creates the folder
    release();
    writeFileSync(lock, dead);
    const { createHash } = await import('node:crypto');
    writeFileSync(
      `${lock}.break-${createHash('sha256').update(dead).digest('hex').slice(0, 16)}`,
      dead.replace('n1', 'n2'),
    );
    const again = await acquireFileMutex(lock, { timeoutMs: 3_000 });
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    again();
  });

  it('an exclusive store (its opener holds the workspace lock) never waits on the file mutex', async () => {
    const release = await acquireFileMutex(join(state, 'claims', 'claims.lock')); // held throughout
    const shared = await openClaimStore(state, { timeoutMs: 50 });
    await expect(shared.tryClaim('g/a', ['a.ts'])).rejects.toMatchObject({ code: 'SY_LOCK_HELD' });
    const exclusive = await openClaimStore(state, { exclusive: true, timeoutMs: 50 });
    expect(await exclusive.tryClaim('g/a', ['a.ts'])).toEqual({ ok: true, paths: ['a.ts'] });
    expect(await exclusive.release('g/a')).toEqual(['a.ts']);
    expect(readClaims(state)).toEqual([]); // still fsynced to claims.json for every reader
    release();
  });
});
