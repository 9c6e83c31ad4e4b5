import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openClaimStore } from '../packages/store-fs/src/claims/claim-store.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const hooks = join(fixtures, 'ts-hooks.mjs');

/** Runs a fixture script as a real Node 24 process; resolves with stdout when it ends. */
function run(
  script: string,
  args: string[],
  untilLine?: string,
): Promise<{ stdout: string; code: number | null; signal: string | null; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hooks, join(fixtures, script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (untilLine && stdout.includes(untilLine))
        resolve({ stdout, code: null, signal: null, pid: child.pid ?? 0 });
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`${script} exited ${code}: ${stderr}`));
      resolve({ stdout, code, signal, pid: child.pid ?? 0 });
    });
  });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-claims-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('claim store across real processes', () => {
  it('never lets two racing processes hold intersecting write sets', async () => {
    const occ = join(dir, 'occupied');
    mkdirSync(occ);
    const state = join(dir, 'state');
    const barrier = join(dir, 'barrier');
    mkdirSync(barrier);
    const names = ['1', '2', '3', '4'];
    const racers = await Promise.all(
      names.map((r) =>
        run('claims/hammer.mjs', [state, occ, r, '60', barrier, String(names.length)]),
      ),
    );
    const summaries = racers.map(
      (r) =>
        JSON.parse(r.stdout) as {
          racer: string;
          contended: { ok: boolean; conflicts?: { path: string; holder: string }[] };
          violations: string[];
        },
    );
    // The race is certain: all four claimed one path together while its winner held it, so
    // exactly one won and each other racer was refused, naming the winner.
    const winners = summaries.filter((s) => s.contended.ok);
    expect(winners).toHaveLength(1);
    const winner = `r${winners[0]?.racer}/contended`;
    for (const s of summaries.filter((x) => !x.contended.ok))
      expect(s.contended.conflicts).toEqual([{ path: 'contended.ts', holder: winner }]);
    // …and through 60 rounds of overlapping claims no two racers held a path at once.
    expect(summaries.flatMap((s) => s.violations)).toEqual([]);
    const store = await openClaimStore(state);
    expect(await store.list()).toEqual([]);
    expect(readdirSync(join(state, 'claims')).sort()).toEqual(['claims.json']);
  }, 120_000);

  it('keeps claims taken by a process that was SIGKILLed (they survive crashes)', async () => {
    const state = join(dir, 'state');
    const result = await run('claims/crash-holding.mjs', [state, 'claims-crash']);
    expect(result.signal).toBe('SIGKILL');
    const store = await openClaimStore(state);
    expect(await store.holderOf('src/held.ts')).toBe('g/crashed');
    expect(await store.tryClaim('g/next', ['src/other.ts', 'src/free.ts'])).toEqual({
      ok: false,
      conflicts: [{ path: 'src/other.ts', holder: 'g/crashed' }],
    });
    // all or none: the free path was not taken either
    expect(await store.holderOf('src/free.ts')).toBeUndefined();
  }, 60_000);

  it('recovers the store mutex left by a SIGKILLed holder', async () => {
    const state = join(dir, 'state');
    await run('claims/crash-holding.mjs', [state, 'mutex-crash']);
    expect(existsSync(join(state, 'claims', 'claims.lock'))).toBe(true);
    const store = await openClaimStore(state, { timeoutMs: 5_000 });
    expect(await store.tryClaim('g/a', ['x.ts'])).toEqual({ ok: true, paths: ['x.ts'] });
    expect(existsSync(join(state, 'claims', 'claims.lock'))).toBe(false);
  }, 60_000);

  it('waits for a live holder and then fails with SY_LOCK_HELD naming it', async () => {
    const state = join(dir, 'state');
    const holder = await run('claims/crash-holding.mjs', [state, 'mutex-hold'], 'ready');
    try {
      const store = await openClaimStore(state, { timeoutMs: 300 });
      await expect(store.tryClaim('g/a', ['x.ts'])).rejects.toMatchObject({
        code: 'SY_LOCK_HELD',
        message: expect.stringContaining(`"pid":${holder.pid}`),
      });
    } finally {
      process.kill(holder.pid, 'SIGKILL');
    }
    const lock = readFileSync(join(state, 'claims', 'claims.lock'), 'utf8');
    expect(JSON.parse(lock).pid).toBe(holder.pid);
  }, 60_000);
});
