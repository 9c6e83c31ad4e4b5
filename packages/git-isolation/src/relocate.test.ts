import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceIsolation } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { layoutOf } from './layout.js';
import { findRepository } from './repository.js';
import { makeRepo, put, read, sh, status } from './test-repo.js';
import { defaultWorktreesRoot, repositoryId } from './worktrees-location.js';

async function open(root: string, worktreesDir?: string): Promise<WorkspaceIsolation> {
  const isolation = await openGitIsolation(root, {
    store: openFsStore({ workspace: root }),
    ...(worktreesDir ? { worktreesDir } : {}),
  });
  if (!isolation) throw new Error('not a git repository');
  return isolation;
}

describe('where worktrees live', () => {
  it('one folder per clone under $XDG_CACHE_HOME (~/.cache when unset): stable for a clone, another for a second clone', async () => {
    expect(defaultWorktreesRoot({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe(
      '/x/cache/switchyard/worktrees',
    );
    expect(defaultWorktreesRoot({ HOME: '/h' })).toBe('/h/.cache/switchyard/worktrees');
    // The XDG spec: a relative value is ignored.
    expect(defaultWorktreesRoot({ XDG_CACHE_HOME: 'rel', HOME: '/h' })).toBe(
      '/h/.cache/switchyard/worktrees',
    );
    const origin = makeRepo();
    const clone = (name: string) => {
      const dir = join(makeRepo(), name);
      sh(origin, 'clone', '-q', origin, dir);
      return dir;
    };
    const [a, b] = [clone('app'), clone('app')];
    const idOf = async (dir: string) => repositoryId((await findRepository(dir))!);
    expect(await idOf(a)).toBe(await idOf(a));
    expect(await idOf(a)).not.toBe(await idOf(b));
    expect(await idOf(a)).toMatch(/^app-[0-9a-f]{12}$/);
    // A workspace in a subfolder has a folder of its own (its tasks' ids are its own).
    mkdirSync(join(a, 'sub'));
    expect(await idOf(join(a, 'sub'))).not.toBe(await idOf(a));
    const repo = (await findRepository(a))!;
    expect(layoutOf(repo, { dir: 'wt' }).worktreesDir).toBe(join(a, 'wt', await idOf(a)));
  });
});

describe('worktrees of an earlier version (nested in the state folder)', () => {
  it('move out of the repository on the next run with their work; one a live process works in moves later', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', '.gitignore': 'node_modules/\n.env\n' });
    const legacy = join(root, 'agent-task/.switchyard/worktrees');
    const old = await open(root, legacy);
    const active = await old.ensureWorktree('g/active');
    const blocked = await old.ensureWorktree('g/blocked');
    const busy = await old.ensureWorktree('g/busy');
    const locked = await old.ensureWorktree('g/locked');
    expect(active.path).toBe(join(legacy, 'g/active'));
    // Work in every state: committed by the agent, uncommitted, untracked, ignored.
    put(active.path, 'src/a.js', 'committed\n');
    sh(active.path, 'commit', '-qam', 'agent commit');
    put(active.path, 'src/b.js', 'untracked\n');
    put(active.path, '.env', 'SECRET=1\n');
    put(blocked.path, 'src/a.js', 'half-written\n');
    await old.markBlocked('g/blocked');
    put(locked.path, 'src/a.js', 'locked work\n');
    // A locked worktree is refused by `git worktree move`: it is copied and repaired instead.
    sh(root, 'worktree', 'lock', locked.path);
    // A live process working in a worktree (an agent of a crashed run) keeps it in place.
    const agent = spawn('sleep', ['60'], { cwd: busy.path, stdio: 'ignore' });
    try {
      const isolation = await open(root);
      await isolation.recover();
      const dir = layoutOf((await findRepository(root))!).worktreesDir;
      const listing = await isolation.list();
      expect(listing.map((l) => [l.taskId, l.state, l.path])).toEqual([
        ['g/active', 'active', join(dir, 'g/active')],
        ['g/blocked', 'blocked', join(dir, 'g/blocked')],
        ['g/busy', 'active', join(legacy, 'g/busy')],
        ['g/locked', 'active', join(dir, 'g/locked')],
      ]);
      const moved = await isolation.ensureWorktree('g/active');
      expect(moved).toMatchObject({ path: join(dir, 'g/active'), workdir: join(dir, 'g/active') });
      expect(read(moved.path, 'src/a.js')).toBe('committed\n');
      expect(read(moved.path, 'src/b.js')).toBe('untracked\n');
      expect(read(moved.path, '.env')).toBe('SECRET=1\n');
      expect(sh(moved.path, 'log', '-1', '--format=%s')).toBe('agent commit');
      expect(await isolation.inspect('g/active', ['src/a.js', 'src/b.js'])).toMatchObject({
        changed: ['src/a.js', 'src/b.js'],
        outside: [],
      });
      expect(read(join(dir, 'g/blocked'), 'src/a.js')).toBe('half-written\n');
      expect(read(join(dir, 'g/locked'), 'src/a.js')).toBe('locked work\n');
      expect(sh(join(dir, 'g/locked'), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(
        'switchyard/g/locked',
      );
      // The busy one moves before its task's next stage (when its agent has ended).
      agent.kill('SIGKILL');
      await new Promise((resolve) => agent.once('exit', resolve));
      expect((await isolation.ensureWorktree('g/busy')).path).toBe(join(dir, 'g/busy'));
      const worktrees = sh(root, 'worktree', 'list', '--porcelain');
      expect(worktrees).not.toContain(legacy);
      expect(worktrees.match(/^worktree /gm)).toHaveLength(5);
      // Nothing of the old folder is left in the repository; its state stays in the state folder.
      expect(existsSync(legacy)).toBe(false);
      expect(status(root)).toBe('');
      expect(
        JSON.parse(
          readFileSync(
            join(root, 'agent-task/.switchyard/isolation/worktrees/g/active.json'),
            'utf8',
          ),
        ).path,
      ).toBe(join(dir, 'g/active'));
      // A move a crash cut short (renamed, record not rewritten yet) is adopted, not redone.
      const other = await old.ensureWorktree('g/crash');
      put(other.path, 'src/a.js', 'crash work\n');
      sh(root, 'worktree', 'move', other.path, join(dir, 'g/crash'));
      expect(read((await isolation.ensureWorktree('g/crash')).path, 'src/a.js')).toBe(
        'crash work\n',
      );
      // Removing the last worktrees removes the repository's folder in the cache too.
      for (const l of await isolation.list()) await isolation.removeWorktree(l.taskId!);
      expect(existsSync(dir)).toBe(false);
    } finally {
      agent.kill('SIGKILL');
    }
  });
});
