import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LEASE_WRITE_DELAY_MS } from './fs-leases.js';
import { openFsStore } from './index.js';

const roots: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), 'sy-fs-leases-'));
  roots.push(root);
  return root;
};
const stored = (file: string) => JSON.parse(readFileSync(file, 'utf8')).leases;

describe('fs leases in an exclusive store', () => {
  it('writes the lease changes of one interval behind them, in one replacement of leases.json', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = openFsStore({ workspace: workspace(), exclusive: true });
    const file = store.layout.leasesFile;
    const a = await store.leases.acquire('g/a', 'h', 60_000);
    const b = await store.leases.acquire('g/b', 'h', 60_000);
    if (!a.ok || !b.ok) throw new Error('not leased');
    await store.leases.release(a.lease);
    // Held in this process: granted at once, nothing written yet.
    expect(existsSync(file)).toBe(false);
    expect(await store.leases.get('g/b')).toMatchObject({ holder: 'h', token: 1 });
    await vi.advanceTimersByTimeAsync(LEASE_WRITE_DELAY_MS);
    await vi.waitFor(() => expect(existsSync(file)).toBe(true));
    expect(stored(file)).toMatchObject({
      'g/a': { holder: 'h', token: 1, released: true },
      'g/b': { holder: 'h', token: 1 },
    });
    await store.close();
  });

  it('writes pending changes at once when the store closes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = openFsStore({ workspace: workspace(), exclusive: true });
    await store.leases.acquire('g/a', 'h', 60_000);
    expect(existsSync(store.layout.leasesFile)).toBe(false);
    await store.close(); // no timer advanced: the close writes them
    expect(stored(store.layout.leasesFile)).toMatchObject({ 'g/a': { holder: 'h', token: 1 } });
  });
});
