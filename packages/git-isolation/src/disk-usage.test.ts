import { link, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diskUsage } from './disk-usage.js';

describe('diskUsage', () => {
  it('counts allocated blocks once per file; files hard-linked from a store are shared, not its own', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sy-du-'));
    const store = join(root, 'store');
    const worktree = join(root, 'worktree');
    await mkdir(join(worktree, 'node_modules/dep'), { recursive: true });
    await mkdir(store);
    await writeFile(join(store, 'big.js'), 'x'.repeat(64 * 1024));
    await link(join(store, 'big.js'), join(worktree, 'node_modules/dep/big.js'));
    await writeFile(join(worktree, 'own.js'), 'y'.repeat(32 * 1024));
    const use = await diskUsage(worktree);
    expect(use.sharedBytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(use.bytes).toBeGreaterThanOrEqual(32 * 1024);
    expect(use.bytes).toBeLessThan(64 * 1024 + 32 * 1024);
    expect(await diskUsage(join(root, 'missing'))).toEqual({ bytes: 0, sharedBytes: 0 });
  });
});
