import { linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapingLinks } from './escaping-links.js';

describe('escapingLinks', () => {
  it('names links out of the worktree or into .git and hard links, keeps links that stay inside and regular files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sy-links-'));
    const worktree = join(root, 'wt');
    mkdirSync(join(worktree, 'src/deep'), { recursive: true });
    writeFileSync(join(worktree, 'src/a.js'), 'a\n');
    writeFileSync(join(root, 'secret'), 'secret\n');
    symlinkSync('a.js', join(worktree, 'src/same-dir'));
    symlinkSync('../../src/a.js', join(worktree, 'src/deep/up-inside'));
    symlinkSync(join(root, 'secret'), join(worktree, 'src/absolute'));
    symlinkSync('../../secret', join(worktree, 'src/relative-out'));
    symlinkSync('../.git/config', join(worktree, 'src/into-git'));
    symlinkSync('..', join(worktree, 'src/deep/parent-dir'));
    symlinkSync('../..', join(worktree, 'src/deep/root'));
    linkSync(join(root, 'secret'), join(worktree, 'src/hard-linked'));
    const files = [
      'src/a.js',
      'src/same-dir',
      'src/deep/up-inside',
      'src/absolute',
      'src/relative-out',
      'src/into-git',
      'src/deep/parent-dir',
      'src/deep/root',
      'src/hard-linked',
      'src/deleted.js',
    ];
    expect(await escapingLinks(worktree, files)).toEqual([
      'src/absolute',
      'src/relative-out',
      'src/into-git',
      'src/deep/root',
      'src/hard-linked',
    ]);
  });
});
