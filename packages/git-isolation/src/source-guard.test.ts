import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { openSourceGuard } from './source-guard.js';
import { makeRepo, put, read, sh, status } from './test-repo.js';

describe('source guard (real git)', () => {
  it('puts back what changed in the source since the snapshot, and only that; the user’s edits from before stay', async () => {
    const root = makeRepo({
      'src/clean.js': 'clean\n',
      'src/user.js': 'user 0\n',
      'src/staged.js': 'staged 0\n',
      'src/allowed.js': 'allowed 0\n',
      'agent-task/g/t/PLAN.md': 'plan\n',
    });
    // The user's own uncommitted work before the attempt: modified, staged, untracked, deleted.
    put(root, 'src/user.js', 'user 1\n');
    put(root, 'src/staged.js', 'staged 1\n');
    sh(root, 'add', 'src/staged.js');
    put(root, 'src/staged.js', 'staged 2\n');
    put(root, 'notes.txt', 'my notes\n');
    sh(root, 'rm', '-q', '--cached', 'src/clean.js');
    sh(root, 'add', 'src/clean.js'); // back in the index: clean again
    const statusBefore = status(root);
    const guard = (await openSourceGuard(root))!;
    const before = await guard.snapshot();

    // The "agent": changes a clean file, the user's files, adds files, stages, links.
    put(root, 'src/clean.js', 'agent\n');
    put(root, 'src/user.js', 'agent\n');
    put(root, 'src/staged.js', 'agent\n');
    sh(root, 'add', 'src/staged.js');
    rmSync(join(root, 'notes.txt'));
    put(root, 'src/new.js', 'agent\n');
    symlinkSync('/etc/passwd', join(root, 'src/link'));
    put(root, 'src/allowed.js', 'allowed 1\n');
    put(root, 'agent-task/g/t/PLAN.md', 'changed plan\n'); // the dispatcher's folder: not looked at

    const keepDir = mkdtempSync(join(tmpdir(), 'sy-kept-'));
    const changes = await guard.check(before, {
      allowed: new Set(['src/allowed.js']),
      restore: true,
      keepDir,
    });
    expect(changes.map((c) => c.path)).toEqual([
      'notes.txt',
      'src/clean.js',
      'src/link',
      'src/new.js',
      'src/staged.js',
      'src/user.js',
    ]);
    expect(changes.every((c) => c.restored)).toBe(true);
    // Exactly as before the attempt: the user's work intact, the agent's gone (and kept).
    expect(read(root, 'src/clean.js')).toBe('clean\n');
    expect(read(root, 'src/user.js')).toBe('user 1\n');
    expect(read(root, 'src/staged.js')).toBe('staged 2\n');
    expect(sh(root, 'show', ':src/staged.js')).toBe('staged 1');
    expect(read(root, 'notes.txt')).toBe('my notes\n');
    expect(existsSync(join(root, 'src/new.js'))).toBe(false);
    expect(existsSync(join(root, 'src/link'))).toBe(false);
    expect(read(root, 'src/allowed.js')).toBe('allowed 1\n');
    const lines = (text: string) =>
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .sort();
    expect(lines(status(root))).toEqual(
      lines(`${statusBefore}\n M src/allowed.js\n M agent-task/g/t/PLAN.md`),
    );
    expect(readFileSync(join(keepDir, 'src/new.js'), 'utf8')).toBe('agent\n');
    expect(readlinkSync(join(keepDir, 'src/link'))).toBe('/etc/passwd');
    // Checked again: nothing left to report.
    expect(
      await guard.check(before, { restore: true, keepDir, allowed: new Set(['src/allowed.js']) }),
    ).toEqual([]);
  });

  it('an apply between snapshot and check is not a change; restore: false only reports', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n' });
    const isolation = (await openGitIsolation(root, { store: openFsStore({ workspace: root }) }))!;
    const guard = (await openSourceGuard(root))!;
    const wt = await isolation.ensureWorktree('g/a');
    const before = await guard.snapshot();
    put(wt.workdir, 'src/a.js', 'a2\n');
    expect(
      (
        await isolation.apply({
          taskId: 'g/a',
          title: 'a',
          targets: [],
          attempts: 1,
          writeSet: ['src/a.js'],
        })
      ).status,
    ).toBe('applied');
    const keepDir = mkdtempSync(join(tmpdir(), 'sy-kept-'));
    expect(await guard.check(before, { restore: true, keepDir })).toEqual([]);
    put(root, 'src/b.js', 'agent\n');
    expect(await guard.check(before, { restore: false, keepDir })).toEqual([
      { path: 'src/b.js', restored: false },
    ]);
    expect(read(root, 'src/b.js')).toBe('agent\n');
  });
});
