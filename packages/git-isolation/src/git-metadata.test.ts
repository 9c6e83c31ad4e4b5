import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { makeRepo, put, read, sh } from './test-repo.js';

describe('git config and hooks changed from inside a worktree (real git)', () => {
  it('refuses hooksPath, fsmonitor, worktree config, hooks and info/exclude; ignores upstream bookkeeping', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
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
    // The apply checks first (as every write-set check does) and refuses.
    const result = await isolation.apply({
      taskId: 'g/t',
      title: 't',
      targets: [],
      attempts: 1,
      writeSet: ['src/a.js'],
    });
    if (result.status !== 'refused') throw new Error(`not refused: ${result.status}`);
    expect(result.report.gitMetadata).toEqual([
      '.git/config: core.fsmonitor (added)',
      '.git/config: core.hookspath (added)',
      '.git/config: extensions.worktreeconfig (added)',
      '.git/hooks/post-checkout (added)',
      '.git/info/exclude (changed)',
      'the worktree’s config.worktree: diff.external (added)',
    ]);
    expect(result.report.empty).toBe(false);
    // Checked before any git command reads an index: the planted fsmonitor never ran.
    expect(existsSync(pwned)).toBe(false);
    expect(original).not.toContain('fsmonitor');
  });

  it('puts the repository back as it was fingerprinted: keys, hooks, info/ (a refusal leaves nothing planted)', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    // What the user had before the task started: a key with two values, a hook, an exclude.
    sh(root, 'config', 'core.autocrlf', 'input');
    sh(root, 'config', '--add', 'diff.tool', 'one');
    sh(root, 'config', '--add', 'diff.tool', 'two');
    put(root, '.git/hooks/pre-commit', '#!/bin/sh\necho user hook\n');
    await chmod(join(root, '.git', 'hooks', 'pre-commit'), 0o755);
    put(root, '.git/info/exclude', 'local-notes.md\n');
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
    if (!isolation) throw new Error('not a git repository');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a2\n');
    const config = join(root, '.git', 'config');
    const before = await readFile(config, 'utf8');
    // The agent, from its worktree: a planted hooksPath, changed and removed keys, a worktree
    // config, a replaced and a new hook, an edited exclude.
    sh(wt.path, 'config', 'core.hooksPath', '/tmp/evil-hooks');
    sh(wt.path, 'config', 'core.autocrlf', 'true');
    sh(wt.path, 'config', '--unset-all', 'diff.tool');
    sh(wt.path, 'config', 'extensions.worktreeConfig', 'true');
    sh(wt.path, 'config', '--worktree', 'core.sshCommand', 'evil');
    const gitDir = sh(wt.path, 'rev-parse', '--path-format=absolute', '--git-dir');
    put(root, '.git/hooks/pre-commit', '#!/bin/sh\ncurl evil\n');
    put(root, '.git/hooks/post-merge', '#!/bin/sh\n');
    put(root, '.git/info/exclude', 'secret.js\n');
    // Ordinary upstream bookkeeping meanwhile is someone else's and stays.
    sh(root, 'remote', 'add', 'origin', 'https://example.com/x.git');

    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report.gitMetadata).toEqual([
      '.git/config: core.autocrlf (changed)',
      '.git/config: core.hookspath (added)',
      '.git/config: diff.tool (removed)',
      '.git/config: extensions.worktreeconfig (added)',
      '.git/hooks/post-merge (added)',
      '.git/hooks/pre-commit (changed)',
      '.git/info/exclude (changed)',
      'the worktree’s config.worktree: core.sshcommand (added)',
    ]);
    expect(report.gitMetadataRestored).toEqual(report.gitMetadata);
    // Back as they were: every key and value, the user's hook (runnable), no new hook.
    const keys = sh(root, 'config', '--local', '--list');
    expect(keys).not.toContain('hookspath');
    expect(keys).not.toContain('worktreeconfig');
    expect(keys).toContain('core.autocrlf=input');
    expect(sh(root, 'config', '--get-all', 'diff.tool').split('\n')).toEqual(['one', 'two']);
    expect(keys).toContain('remote.origin.url=https://example.com/x.git');
    expect(read(root, '.git/hooks/pre-commit')).toBe('#!/bin/sh\necho user hook\n');
    expect((await stat(join(root, '.git', 'hooks', 'pre-commit'))).mode & 0o777).toBe(0o755);
    expect(existsSync(join(root, '.git', 'hooks', 'post-merge'))).toBe(false);
    expect(read(root, '.git/info/exclude')).toBe('local-notes.md\n');
    expect(existsSync(join(gitDir, 'config.worktree'))).toBe(false);
    expect(before).toContain('autocrlf = input');
    // Nothing is left to refuse: the next check passes and the task applies.
    expect((await isolation.inspect('g/t', ['src/a.js'])).gitMetadata).toEqual([]);
  });

  it('does not write a snapshot copy into .git that no longer matches the fingerprint', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    put(root, '.git/hooks/pre-push', '#!/bin/sh\nexit 0\n');
    await chmod(join(root, '.git', 'hooks', 'pre-push'), 0o755);
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
    if (!isolation) throw new Error('not a git repository');
    const wt = await isolation.ensureWorktree('g/t');
    // The copy kept to undo changes is tampered with, then the hook is changed.
    const snapshots = join(root, 'agent-task/.switchyard/isolation/metadata');
    const [dir = ''] = await readdir(snapshots);
    await writeFile(join(snapshots, dir, 'hooks/pre-push'), '#!/bin/sh\ncurl evil\n');
    put(root, '.git/hooks/pre-push', '#!/bin/sh\nexit 1\n');
    sh(wt.path, 'config', 'core.hooksPath', '/tmp/evil');
    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report.gitMetadata).toEqual([
      '.git/config: core.hookspath (added)',
      '.git/hooks/pre-push (changed)',
    ]);
    // The added key goes (no copy needed); the hook stays as it is, never the tampered copy.
    expect(report.gitMetadataRestored).toEqual(['.git/config: core.hookspath (added)']);
    expect(read(root, '.git/hooks/pre-push')).toBe('#!/bin/sh\nexit 1\n');
  });
});

describe('commits an agent makes in its worktree (real git)', () => {
  it("are reported (not the dispatcher's own) and squashed by the apply", async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
    if (!isolation) throw new Error('not a git repository');
    const wt = await isolation.ensureWorktree('g/t');
    expect((await isolation.inspect('g/t', ['src/a.js'])).agentCommits).toBeUndefined();
    put(wt.workdir, 'src/a.js', 'a2\n');
    sh(wt.path, 'commit', '-q', '-am', 'agent: first');
    put(wt.workdir, 'src/a.js', 'a3\n');
    sh(wt.path, 'commit', '-q', '-am', 'agent: second');
    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report.agentCommits?.map((c) => c.slice(13))).toEqual(['agent: first', 'agent: second']);
    expect(report.gitMetadata).toEqual([]);
    // A commit the dispatcher made (its trailer names the task) is not the agent's.
    sh(
      wt.path,
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'Do t\n\nSwitchyard-Task: g/t\nSwitchyard-Targets: a\nSwitchyard-Attempts: 1',
    );
    expect((await isolation.inspect('g/t', ['src/a.js'])).agentCommits).toHaveLength(2);
    const applied = await isolation.apply({
      taskId: 'g/t',
      title: 'Do t',
      targets: ['a'],
      attempts: 1,
      writeSet: ['src/a.js'],
    });
    expect(applied.status).toBe('applied');
    expect(sh(root, 'log', '--format=%s', 'main')).toBe('Do t\ninitial');
  });
});
