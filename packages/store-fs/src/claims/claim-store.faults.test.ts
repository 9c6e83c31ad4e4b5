import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { replaceFile } from '@switchyard/utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openClaimStore, readClaims } from './claim-store.js';

// Faults injected below the claim store: the lock's release and the save of claims.json.
const faults = vi.hoisted(() => ({ releaseErrors: 0, saveErrors: 0 }));

vi.mock('./file-mutex.js', async (original) => {
  const real = await original<typeof import('./file-mutex.js')>();
  return {
    ...real,
    acquireFileMutex: async (...args: Parameters<typeof real.acquireFileMutex>) => {
      const release = await real.acquireFileMutex(...args);
      return () => {
        release();
        if (faults.releaseErrors > 0) {
          faults.releaseErrors--;
          throw Object.assign(new Error('EIO: i/o error, unlink'), { code: 'EIO' });
        }
      };
    },
  };
});

vi.mock('@switchyard/utils', async (original) => {
  const real = await original<{ replaceFile: typeof replaceFile }>();
  return {
    ...real,
    replaceFile: (...args: Parameters<typeof replaceFile>) => {
      if (faults.saveErrors > 0) {
        faults.saveErrors--;
        return Promise.reject(
          Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }),
        );
      }
      return real.replaceFile(...args);
    },
  };
});

let state: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  state = mkdtempSync(join(tmpdir(), 'sy-claim-faults-'));
  faults.releaseErrors = 0;
  faults.saveErrors = 0;
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  rmSync(state, { recursive: true, force: true });
});

describe('claim store faults', () => {
  it('a lock that fails to release leaves its batch settled as saved and the queue running', async () => {
    const store = await openClaimStore(state);
    faults.releaseErrors = 1;
    // the claim is durable when the release fails: its caller sees it taken
    expect(await store.tryClaim('g/a', ['a.ts'])).toEqual({ ok: true, paths: ['a.ts'] });
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/a']);
    // the next changes still run and settle
    expect(await store.tryClaim('g/b', ['b.ts'])).toEqual({ ok: true, paths: ['b.ts'] });
    expect(await store.release('g/a')).toEqual(['a.ts']);
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/b']);
    await new Promise((resolve) => setImmediate(resolve)); // a rejection left unhandled is reported by now
    expect(faults.releaseErrors).toBe(0);
    expect(unhandled).toEqual([]);
  });

  it('a failed save rejects every member of its batch and the next batch still runs', async () => {
    const store = await openClaimStore(state, { exclusive: true });
    await store.tryClaim('g/a', ['a.ts']);
    faults.saveErrors = 1;
    // asked for in one turn: one batch, one save, which fails
    const released = store.release('g/a');
    const claimed = store.tryClaim('g/b', ['b.ts']);
    await expect(released).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(claimed).rejects.toMatchObject({ code: 'ENOSPC' });
    // nothing of the failed batch stays, in the file or in what the store reads
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/a']);
    expect(await store.holderOf('a.ts')).toBe('g/a');
    expect(await store.holderOf('b.ts')).toBeUndefined();
    // the next batch runs
    expect(await store.tryClaim('g/b', ['b.ts'])).toEqual({ ok: true, paths: ['b.ts'] });
    expect(await store.release('g/a')).toEqual(['a.ts']);
    expect(readClaims(state).map((c) => c.taskId)).toEqual(['g/b']);
    expect(unhandled).toEqual([]);
  });
});
