import { existsSync } from 'node:fs';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { makeRepo, put, sh } from './test-repo.js';

describe('git config and hooks changed from inside a worktree (real git)', () => {
  it('refuses hooksPath, fsmonitor, worktree config, hooks and info/exclude; ignores upstream bookkeeping', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await openGitIsolation(root);
    if (!isolation) throw new Error('not a git repository');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a2\n');
    const config = join(root, '.git', 'config');
    const original = await readFile(config, 'utf8');
    // What ordinary git use changes while tasks run is not the agent's doing.
    sh(root, 'config', 'branch.main.remote', 'origin');
    sh(root, 'remote', 'add', 'origin', 'https://example.com/x.git');
    sh(root, 'config', 'user.email', 'other@example.com');
    expect((await isolation.inspect('g/t', ['src/a.js'])).gitMetadata).toEqual([]);
    // Run in the worktree, as an agent would: they all land in the repository's git dirs.
    sh(wt.path, 'config', 'core.hooksPath', '/tmp/evil');
    const pwned = join(root, 'pwned');
    sh(wt.path, 'config', 'core.fsmonitor', `touch ${pwned}`);
    sh(wt.path, 'config', 'extensions.worktreeConfig', 'true');
    sh(wt.path, 'config', '--worktree', 'diff.external', 'evil');
    const gitDir = sh(wt.path, 'rev-parse', '--path-format=absolute', '--git-dir');
    put(gitDir, '../../hooks/post-checkout', '#!/bin/sh\n');
    await chmod(join(root, '.git', 'hooks', 'post-checkout'), 0o755);
    put(root, '.git/info/exclude', 'secret.js\n');
    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report.gitMetadata).toEqual([
      '.git/config: core.fsmonitor (added)',
      '.git/config: core.hookspath (added)',
      '.git/config: extensions.worktreeconfig (added)',
      '.git/hooks/post-checkout (added)',
      '.git/info/exclude (changed)',
      'the worktree’s config.worktree: diff.external (added)',
    ]);
    expect(report.empty).toBe(false);
    expect(
      (
        await isolation.apply({
          taskId: 'g/t',
          title: 't',
          targets: [],
          attempts: 1,
          writeSet: ['src/a.js'],
        })
      ).status,
    ).toBe('refused');
    // Checked before any git command reads an index: the planted fsmonitor never ran.
    expect(existsSync(pwned)).toBe(false);
    expect(original).not.toContain('fsmonitor');
  });
});
