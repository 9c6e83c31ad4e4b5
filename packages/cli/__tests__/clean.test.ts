import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openGitIsolation } from '@switchyard/git-isolation';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './catalog-helpers.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

async function repoWithWorktrees(): Promise<string> {
  const root = await tempDir('sy-clean-');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'Test User');
  git(root, 'config', 'user.email', 'test@example.com');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/a.js'), 'a\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial');
  const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
  if (!isolation) throw new Error('no repository');
  for (const id of ['g/active', 'g/applied', 'g/blocked']) await isolation.ensureWorktree(id);
  writeFileSync(join(worktree(root, 'g/applied'), 'src/a.js'), 'done\n');
  const applied = await isolation.apply({
    taskId: 'g/applied',
    title: 'apply it',
    targets: ['t'],
    attempts: 1,
    writeSet: ['src/a.js'],
  });
  expect(applied.status).toBe('applied');
  await isolation.markBlocked('g/blocked');
  return root;
}

// Real git for the repository; PATH must reach it, so the CLI runs with the test's PATH, and
// the worktrees' cache folder (the test's own XDG_CACHE_HOME).
const env = () => ({ PATH: process.env.PATH ?? '', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME! });
// `<cache>/switchyard/worktrees/<repository id>/<group>/<task>`: the id ends with a hash.
const worktree = (root: string, id: string) => {
  const base = join(process.env.XDG_CACHE_HOME!, 'switchyard/worktrees');
  const repo = readdirSync(base).find((d) => d.startsWith(`${basename(root)}-`));
  return join(base, repo ?? 'missing', id);
};

describe('switchyard clean', () => {
  it('--dry-run lists, then clean removes applied leftovers, --blocked the blocked ones; active stays', {
    timeout: 60_000,
  }, async () => {
    const root = await repoWithWorktrees();
    const dry = await runCli(['clean', '--dry-run', '--json', '--workspace', root], { env: env() });
    expect(dry.exitCode).toBe(0);
    const report = JSON.parse(dry.stdout);
    expect(report.dryRun).toBe(true);
    expect(report.removed.map((w: { taskId: string }) => w.taskId)).toEqual(['g/applied']);
    expect(report.bytesFreed).toBeGreaterThan(0);
    expect(existsSync(worktree(root, 'g/applied'))).toBe(true);

    const human = await runCli(['clean', '--workspace', root], { env: env() });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^removed g\/applied \(applied\) /m);
    expect(human.stdout).toMatch(/^kept g\/blocked \(blocked: use --blocked to remove\)/m);
    expect(existsSync(worktree(root, 'g/applied'))).toBe(false);
    expect(existsSync(worktree(root, 'g/blocked'))).toBe(true);

    expect(
      (await runCli(['clean', '--blocked', '--workspace', root], { env: env() })).exitCode,
    ).toBe(0);
    expect(existsSync(worktree(root, 'g/blocked'))).toBe(false);
    expect(existsSync(worktree(root, 'g/active'))).toBe(true);
    expect(git(root, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/switchyard/')).toBe(
      'switchyard/g/active',
    );
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('outside git says there is nothing to clean and exits 0', async () => {
    const dir = await tempDir('sy-clean-nogit-');
    const result = await runCli(['clean', '--workspace', dir], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('is not in a git repository');
  });
});
