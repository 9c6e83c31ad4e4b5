import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApplyRequest, WorkspaceIsolation } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { commandCheck } from './command-check.js';
import { openGitIsolation } from './git-isolation.js';
import { layoutOf } from './layout.js';
import { findRepository } from './repository.js';
import { makeRepo, put, read, sh, status } from './test-repo.js';

const node = process.execPath;

/** The folder the workspace's task worktrees go in (`<group>/<task>` inside it). */
async function worktreesDirOf(workspace: string): Promise<string> {
  const repo = await findRepository(workspace);
  if (!repo) throw new Error('not a git repository');
  return layoutOf(repo).worktreesDir;
}

async function open(root: string): Promise<WorkspaceIsolation> {
  const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
  if (!isolation) throw new Error('not a git repository');
  return isolation;
}

const request = (
  taskId: string,
  writeSet: string[],
  extra: Partial<ApplyRequest> = {},
): ApplyRequest => ({
  taskId,
  title: `Do ${taskId}`,
  targets: ['worker-a', 'reviewer-b'],
  attempts: 2,
  writeSet,
  ...extra,
});

describe('worktree per task', () => {
  it('creates the worktree from the source tip on switchyard/<group>/<task> and re-attaches after a restart', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const tip = sh(root, 'rev-parse', 'HEAD');
    const first = await (await open(root)).ensureWorktree('g1/t1');
    expect(first.branch).toBe('switchyard/g1/t1');
    expect(first.baseCommit).toBe(tip);
    // Outside the repository, under the cache: <repository id>/<group>/<task>.
    expect(first.path).toBe(join(await worktreesDirOf(root), 'g1/t1'));
    expect(first.path.startsWith(join(process.env.XDG_CACHE_HOME!, 'switchyard/worktrees/'))).toBe(
      true,
    );
    expect(read(first.workdir, 'src/a.js')).toBe('a\n');
    expect(sh(first.path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/switchyard/g1/t1');
    put(first.workdir, 'src/a.js', 'work in progress\n');
    // a new dispatcher process: same worktree, work kept
    sh(root, 'commit', '-q', '--allow-empty', '-m', 'moved on');
    const again = await (await open(root)).ensureWorktree('g1/t1');
    expect(again).toEqual(first);
    expect(read(again.workdir, 'src/a.js')).toBe('work in progress\n');
    // the source repository sees no worktree or record as untracked
    expect(status(root)).toBe('');
  });

  it('re-creates a worktree whose folder was deleted, on the recorded branch and base', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await open(root);
    const record = await isolation.ensureWorktree('g/t');
    put(record.workdir, 'src/a.js', 'changed\n');
    sh(record.path, 'commit', '-q', '-am', 'agent commit');
    await rm(record.path, { recursive: true, force: true });
    const again = await isolation.ensureWorktree('g/t');
    expect(read(again.workdir, 'src/a.js')).toBe('changed\n');
  });

  it('a leftover branch and folder of an earlier task of the same id are replaced by a fresh worktree', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    sh(root, 'branch', 'switchyard/g/t');
    sh(root, 'commit', '-q', '--allow-empty', '-m', 'moved on');
    const tip = sh(root, 'rev-parse', 'HEAD');
    put(join(await worktreesDirOf(root), 'g/t'), 'stale.txt', 'left behind\n');
    const record = await (await open(root)).ensureWorktree('g/t');
    expect(record.baseCommit).toBe(tip);
    expect(sh(record.path, 'rev-parse', 'HEAD')).toBe(tip);
    expect(existsSync(join(record.path, 'stale.txt'))).toBe(false);
    expect(read(record.workdir, 'src/a.js')).toBe('a\n');
  });

  it('branch names git alone can judge are asked of git; a detached or unborn source HEAD is named', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await open(root);
    expect((await isolation.ensureWorktree('grüppe/t.1')).branch).toBe('switchyard/grüppe/t.1');
    await expect(isolation.ensureWorktree('g/t..x')).rejects.toThrow(/no valid branch name/);
    sh(root, 'checkout', '-q', '--detach');
    await expect(isolation.ensureWorktree('g/other')).rejects.toThrow(/detached HEAD/);
    sh(root, 'checkout', '-q', '--orphan', 'fresh');
    await expect(isolation.ensureWorktree('g/third')).rejects.toThrow(
      /branch fresh has no commit yet/,
    );
  });

  it('a dependent task starts from its predecessor’s commit', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n' });
    const isolation = await open(root);
    const first = await isolation.ensureWorktree('g/first');
    put(first.workdir, 'src/a.js', 'a from first\n');
    const applied = await isolation.apply(request('g/first', ['src/a.js']));
    expect(applied.status).toBe('applied');
    const second = await isolation.ensureWorktree('g/second');
    expect(applied.status === 'applied' && second.baseCommit).toBe(
      applied.status === 'applied' && applied.sourceCommit,
    );
    expect(read(second.workdir, 'src/a.js')).toBe('a from first\n');
  });
});

describe('write-set enforcement', () => {
  it('reports files outside the write set, including agent commits and untracked files, and refuses to apply them', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'package.json': '{}\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a2\n');
    put(wt.workdir, 'package.json', '{"x":1}\n');
    sh(wt.path, 'commit', '-q', '-am', 'agent commit');
    put(wt.workdir, 'src/sneaky.js', 'sneaky\n');
    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report).toEqual({
      changed: ['package.json', 'src/a.js', 'src/sneaky.js'],
      outside: ['package.json', 'src/sneaky.js'],
      gitMetadata: [],
      agentCommits: [expect.stringMatching(/^[0-9a-f]{12} agent commit$/)],
      empty: false,
    });
    const refused = await isolation.apply(request('g/t', ['src/a.js']));
    expect(refused.status).toBe('refused');
    expect(refused.status === 'refused' && refused.message).toBe(
      'refused: files outside the write set: package.json, src/sneaky.js',
    );
    expect(sh(root, 'log', '--oneline').split('\n')).toHaveLength(1);
  });

  it('revert-outside resets only the outside files, then the task applies', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'package.json': '{}\n', 'old.txt': 'old\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a2\n');
    put(wt.workdir, 'package.json', '{"x":1}\n');
    sh(wt.path, 'commit', '-q', '-am', 'agent commit');
    await rm(join(wt.workdir, 'old.txt'));
    put(wt.workdir, 'src/sneaky.js', 'sneaky\n');
    expect(await isolation.revertOutside('g/t', ['src/a.js'])).toEqual([
      'old.txt',
      'package.json',
      'src/sneaky.js',
    ]);
    expect(read(wt.workdir, 'package.json')).toBe('{}\n');
    expect(read(wt.workdir, 'old.txt')).toBe('old\n');
    expect(existsSync(join(wt.workdir, 'src/sneaky.js'))).toBe(false);
    expect(await isolation.inspect('g/t', ['src/a.js'])).toMatchObject({
      changed: ['src/a.js'],
      outside: [],
    });
    expect((await isolation.apply(request('g/t', ['src/a.js']))).status).toBe('applied');
    expect(read(root, 'src/a.js')).toBe('a2\n');
    expect(read(root, 'package.json')).toBe('{}\n');
  });

  it('reports an empty diff', async () => {
    const root = makeRepo();
    const isolation = await open(root);
    await isolation.ensureWorktree('g/t');
    expect(await isolation.inspect('g/t', ['README.md'])).toEqual({
      changed: [],
      outside: [],
      gitMetadata: [],
      empty: true,
    });
    const result = await isolation.apply(request('g/t', ['README.md']));
    expect(result.status === 'refused' && result.message).toBe('refused: no change was made');
  });

  it('refuses changes to git metadata: a nested repository, a switched branch, a rewritten .git link', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a2\n');
    sh(wt.path, 'init', '-q', 'vendor/lib');
    put(wt.workdir, 'vendor/lib/x.js', 'x\n');
    const report = await isolation.inspect('g/t', ['src/a.js']);
    expect(report.gitMetadata).toEqual(['vendor/lib/ (a nested git repository)']);
    expect((await isolation.apply(request('g/t', ['src/a.js']))).status).toBe('refused');
    await rm(join(wt.workdir, 'vendor'), { recursive: true });
    sh(wt.path, 'switch', '-q', '-c', 'elsewhere');
    expect((await isolation.inspect('g/t', ['src/a.js'])).gitMetadata).toEqual([
      'HEAD (moved from switchyard/g/t to refs/heads/elsewhere)',
    ]);
    await writeFile(join(wt.path, '.git'), 'gitdir: /nowhere\n');
    expect((await isolation.inspect('g/t', ['src/a.js'])).gitMetadata).toEqual([
      '.git (the worktree link was changed)',
    ]);
  });
});

describe('apply', () => {
  it('parallel tasks on different files: both commits land on the source branch, source status clean', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n' });
    const isolation = await open(root);
    const [a, b] = await Promise.all([
      isolation.ensureWorktree('g/a'),
      isolation.ensureWorktree('g/b'),
    ]);
    put(a.workdir, 'src/a.js', 'a done\n');
    put(b.workdir, 'src/b.js', 'b done\n');
    put(b.workdir, 'src/b-new.js', 'new\n');
    const results = await Promise.all([
      isolation.apply(request('g/a', ['src/a.js'], { check: commandCheck([node, '-e', '0']) })),
      isolation.apply(
        request('g/b', ['src/b.js', 'src/b-new.js'], { check: commandCheck([node, '-e', '0']) }),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(status(root)).toBe('');
    expect(read(root, 'src/a.js')).toBe('a done\n');
    expect(read(root, 'src/b-new.js')).toBe('new\n');
    const log = sh(
      root,
      'log',
      '--format=%s|%(trailers:key=Switchyard-Task,valueonly,separator=)',
      'main',
    );
    expect(log.split('\n').sort()).toEqual(['Do g/a|g/a', 'Do g/b|g/b', 'initial|']);
    const body = sh(root, 'log', '-1', '--format=%B', 'main');
    expect(body).toMatch(/Switchyard-Targets: worker-a, reviewer-b\nSwitchyard-Attempts: 2$/);
    // linear history: one commit per task, each on top of the other
    expect(sh(root, 'rev-list', '--count', '--merges', 'main')).toBe('0');
    // applying again returns the same result; archive then removes worktree and branch
    const again = await isolation.apply(request('g/a', ['src/a.js']));
    expect(again).toEqual(results[0]);
    await isolation.removeWorktree('g/a');
    await isolation.removeWorktree('g/b');
    expect(existsSync(a.path)).toBe(false);
    expect(sh(root, 'branch', '--list', 'switchyard/*')).toBe('');
    expect(sh(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('the commit is the working tree: agent commits squashed, a committed change undone in the tree dropped, deletions kept', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'src/gone.js': 'gone\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'agent commit\n');
    sh(wt.path, 'commit', '-q', '-am', 'agent commit');
    put(wt.workdir, 'src/a.js', 'a\n'); // undone in the tree, not committed
    put(wt.workdir, 'src/b.js', 'b done\n');
    put(wt.workdir, 'src/new.js', 'new\n');
    await rm(join(wt.workdir, 'src/gone.js'));
    const files = ['src/a.js', 'src/b.js', 'src/new.js', 'src/gone.js'];
    const result = await isolation.apply(request('g/t', files));
    expect(result.status).toBe('applied');
    expect(sh(root, 'show', '--name-status', '--format=', 'main').split('\n').sort()).toEqual([
      'A\tsrc/new.js',
      'D\tsrc/gone.js',
      'M\tsrc/b.js',
    ]);
    expect(read(root, 'src/a.js')).toBe('a\n');
    expect(status(root)).toBe('');
  });

  it('source DoD failure rolls back exactly that commit and leaves the source clean', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'check.mjs': 'process.exit(0)\n' });
    const isolation = await open(root);
    const tip = sh(root, 'rev-parse', 'HEAD');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'broken\n');
    put(wt.workdir, 'src/added.js', 'added\n');
    const failing = commandCheck([
      node,
      '-e',
      "const s=require('fs').readFileSync('src/a.js','utf8');if(s.includes('broken')){console.log('a.js is broken');process.exit(1)}",
    ]);
    const result = await isolation.apply(
      request('g/t', ['src/a.js', 'src/added.js'], { check: failing }),
    );
    expect(result.status).toBe('dod-failed');
    expect(result.status === 'dod-failed' && result.detail).toContain('a.js is broken');
    expect(sh(root, 'rev-parse', 'HEAD')).toBe(tip);
    expect(status(root)).toBe('');
    expect(read(root, 'src/a.js')).toBe('a\n');
    expect(existsSync(join(root, 'src/added.js'))).toBe(false);
    // the worker fixes it in the same worktree; the next apply passes
    put(wt.workdir, 'src/a.js', 'fixed\n');
    const next = await isolation.apply(
      request('g/t', ['src/a.js', 'src/added.js'], { check: failing }),
    );
    expect(next.status).toBe('applied');
    expect(status(root)).toBe('');
    expect(read(root, 'src/added.js')).toBe('added\n');
  });

  it('a rollback keeps what the user changed in the task’s files while the source check ran', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'src/gone.js': 'gone\n' });
    const isolation = await open(root);
    const tip = sh(root, 'rev-parse', 'HEAD');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'task a\n');
    put(wt.workdir, 'src/b.js', 'task b\n');
    put(wt.workdir, 'src/new.js', 'task new\n');
    await rm(join(wt.workdir, 'src/gone.js'));
    // The user edits two of the landed files, and re-creates the deleted one, while the check
    // runs on the source; the check fails.
    const check = async (cwd: string) => {
      put(cwd, 'src/a.js', 'task a\nuser edit\n');
      put(cwd, 'src/new.js', 'task new\nuser edit\n');
      put(cwd, 'src/gone.js', 'user again\n');
      return { ok: false, detail: 'the check failed' };
    };
    const files = ['src/a.js', 'src/b.js', 'src/new.js', 'src/gone.js'];
    const result = await isolation.apply(request('g/t', files, { check }));
    expect(result.status).toBe('dod-failed');
    expect(result.status === 'dod-failed' && result.kept).toEqual([
      'src/a.js',
      'src/gone.js',
      'src/new.js',
    ]);
    expect(sh(root, 'rev-parse', 'HEAD')).toBe(tip);
    // The task's own change is undone; the user's edits are left as uncommitted changes.
    expect(read(root, 'src/b.js')).toBe('b\n');
    expect(read(root, 'src/a.js')).toBe('task a\nuser edit\n');
    expect(read(root, 'src/new.js')).toBe('task new\nuser edit\n');
    expect(read(root, 'src/gone.js')).toBe('user again\n');
    expect(sh(root, 'diff', '--cached', '--name-only')).toBe('');
    expect(sh(root, 'diff', '--name-only').split('\n')).toEqual(['src/a.js', 'src/gone.js']);
    expect(sh(root, 'ls-files', '--others', '--exclude-standard')).toBe('src/new.js');
    // The next apply waits for them instead of writing over them.
    const next = await isolation.apply(request('g/t', files));
    expect(next.status).toBe('waiting');
    expect(next.status === 'waiting' && next.files).toEqual([
      'src/a.js',
      'src/gone.js',
      'src/new.js',
    ]);
  });

  it('stop: queued applies end interrupted with nothing touched while the one under way lands; abort rolls the one under way back', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'src/c.js': 'c\n' });
    const isolation = await open(root);
    const tip = sh(root, 'rev-parse', 'HEAD');
    for (const t of ['a', 'b', 'c'])
      put((await isolation.ensureWorktree(`g/${t}`)).workdir, `src/${t}.js`, `${t}2\n`);
    // g/a's check on the source holds until released; g/b and g/c queue behind it.
    let started: () => void = () => {};
    const checking = new Promise<void>((r) => {
      started = r;
    });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const stop = new AbortController();
    const abort = new AbortController();
    const a = isolation.apply(
      request('g/a', ['src/a.js'], {
        stop: stop.signal,
        abort: abort.signal,
        check: async () => {
          started();
          await held;
          return { ok: true };
        },
      }),
    );
    await checking;
    const b = isolation.apply(request('g/b', ['src/b.js'], { stop: stop.signal }));
    const c = isolation.apply(request('g/c', ['src/c.js'], { stop: stop.signal }));
    stop.abort();
    expect((await b).status).toBe('interrupted');
    expect((await c).status).toBe('interrupted');
    release();
    const landed = await a;
    expect(landed.status).toBe('applied');
    expect(sh(root, 'rev-parse', 'HEAD^')).toBe(tip);
    expect(read(root, 'src/b.js')).toBe('b\n');
    expect(status(root)).toBe('');

    // g/b again, aborted while its check runs: rolled back through its journal.
    const moved = sh(root, 'rev-parse', 'HEAD');
    const again = isolation.apply(
      request('g/b', ['src/b.js'], {
        abort: abort.signal,
        check: async () => {
          abort.abort();
          return { ok: false, detail: 'killed' };
        },
      }),
    );
    const aborted = await again;
    expect(aborted.status).toBe('interrupted');
    expect(aborted.status === 'interrupted' && aborted.rolledBack).toMatch(/^[0-9a-f]{40}$/);
    expect(sh(root, 'rev-parse', 'HEAD')).toBe(moved);
    expect(read(root, 'src/b.js')).toBe('b\n');
    expect(status(root)).toBe('');
    expect(existsSync(join(root, 'agent-task/.switchyard/isolation/apply/g/b.json'))).toBe(false);
    // Nothing is lost: the interrupted tasks apply later.
    expect((await isolation.apply(request('g/b', ['src/b.js']))).status).toBe('applied');
    expect((await isolation.apply(request('g/c', ['src/c.js']))).status).toBe('applied');
    expect(read(root, 'src/c.js')).toBe('c2\n');
  });

  it('a conflict: no half-applied tree, the conflicting files named, a fresh worktree from the new tip', async () => {
    const root = makeRepo({ 'src/a.js': 'line 1\n' });
    const isolation = await open(root);
    const one = await isolation.ensureWorktree('g/one');
    const two = await isolation.ensureWorktree('g/two');
    put(one.workdir, 'src/a.js', 'line 1 by one\n');
    put(two.workdir, 'src/a.js', 'line 1 by two\n');
    expect((await isolation.apply(request('g/one', ['src/a.js']))).status).toBe('applied');
    const tip = sh(root, 'rev-parse', 'HEAD');
    const conflict = await isolation.apply(request('g/two', ['src/a.js']));
    expect(conflict).toMatchObject({ status: 'conflict', files: ['src/a.js'], sourceTip: tip });
    expect(sh(root, 'rev-parse', 'HEAD')).toBe(tip);
    expect(status(root)).toBe('');
    expect(read(root, 'src/a.js')).toBe('line 1 by one\n');
    const fresh = await isolation.recreateWorktree('g/two');
    expect(fresh.baseCommit).toBe(tip);
    expect(read(fresh.workdir, 'src/a.js')).toBe('line 1 by one\n');
    put(fresh.workdir, 'src/a.js', 'line 1 by one and two\n');
    expect((await isolation.apply(request('g/two', ['src/a.js']))).status).toBe('applied');
  });

  it('non-overlapping source changes made meanwhile are merged in (the task is replayed onto the new tip)', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a by task\n');
    put(root, 'src/b.js', 'b by user\n');
    sh(root, 'commit', '-q', '-am', 'user commit');
    const result = await isolation.apply(request('g/t', ['src/a.js']));
    expect(result).toMatchObject({ status: 'applied', files: ['src/a.js'] });
    expect(sh(root, 'log', '--format=%s', '-2')).toBe('Do g/t\nuser commit');
    expect(read(root, 'src/b.js')).toBe('b by user\n');
    expect(status(root)).toBe('');
  });

  it('a dirty source tree: overlapping files make apply wait; the user’s other changes are never touched', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'notes.md': 'n\n' });
    const isolation = await open(root);
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a by task\n');
    put(wt.workdir, 'src/new.js', 'new by task\n');
    put(root, 'src/a.js', 'a by user, uncommitted\n');
    put(root, 'src/new.js', 'user scratch\n');
    put(root, 'notes.md', 'user notes\n');
    const waiting = await isolation.apply(request('g/t', ['src/a.js', 'src/new.js']));
    expect(waiting).toEqual({
      status: 'waiting',
      taskId: 'g/t',
      files: ['src/a.js', 'src/new.js'],
      message: 'waiting: dirty source overlaps src/a.js, src/new.js',
    });
    expect(read(root, 'src/a.js')).toBe('a by user, uncommitted\n');
    // the user commits their a.js change elsewhere and drops the scratch file: now it conflicts or applies
    sh(root, 'checkout', '-q', '--', 'src/a.js');
    await rm(join(root, 'src/new.js'));
    const applied = await isolation.apply(request('g/t', ['src/a.js', 'src/new.js']));
    expect(applied.status).toBe('applied');
    expect(read(root, 'notes.md')).toBe('user notes\n');
    expect(status(root)).toBe('M notes.md');
  });
});

describe('cleanup', () => {
  it('lists worktrees with disk use; clean removes leftovers, keeps blocked unless asked, never an active one', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await open(root);
    for (const id of ['g/active', 'g/blocked', 'g/applied']) await isolation.ensureWorktree(id);
    put(join(await worktreesDirOf(root), 'g/applied'), 'src/a.js', 'done\n');
    expect((await isolation.apply(request('g/applied', ['src/a.js']))).status).toBe('applied');
    await isolation.markBlocked('g/blocked');
    sh(root, 'branch', 'switchyard/old/merged', 'main');
    const listing = await isolation.list();
    expect(listing.map((l) => [l.taskId, l.state])).toEqual([
      ['g/active', 'active'],
      ['g/applied', 'applied'],
      ['g/blocked', 'blocked'],
      ['old/merged', 'orphan'],
    ]);
    expect(listing[0]?.bytes).toBeGreaterThan(0);
    const dry = await isolation.clean({ dryRun: true });
    expect(dry.removed.map((l) => l.taskId)).toEqual(['g/applied', 'old/merged']);
    expect((await isolation.list()).length).toBe(4);
    const objectsBefore = sh(root, 'count-objects', '-v');
    const cleaned = await isolation.clean();
    expect(cleaned.removed.map((l) => l.taskId)).toEqual(['g/applied', 'old/merged']);
    expect(cleaned.kept.map((l) => l.taskId)).toEqual(['g/active', 'g/blocked']);
    expect(sh(root, 'count-objects', '-v')).toBe(objectsBefore);
    await isolation.clean({ blocked: true });
    expect((await isolation.list()).map((l) => l.taskId)).toEqual(['g/active']);
    expect(existsSync(join(await worktreesDirOf(root), 'g/active/src/a.js'))).toBe(true);
    expect(status(root)).toBe('');
  });
});

describe('outside git', () => {
  it('openGitIsolation returns undefined', async () => {
    const root = makeRepo();
    await rm(join(root, '.git'), { recursive: true });
    expect(
      await openGitIsolation(root, { store: openFsStore({ workspace: root }) }),
    ).toBeUndefined();
  });
});

describe('gates run in the task’s own worktree', () => {
  it('a gate of task A does not see task B’s half-written test', async () => {
    const root = makeRepo({
      'test/a.test.mjs': "import test from 'node:test';\ntest('a', () => {});\n",
    });
    const isolation = await open(root);
    const a = await isolation.ensureWorktree('g/a');
    const b = await isolation.ensureWorktree('g/b');
    put(b.workdir, 'test/b.test.mjs', "throw new Error('half-written by task B');\n");
    const gate = commandCheck([node, '--test']);
    expect((await gate(b.workdir)).ok).toBe(false);
    expect(await gate(a.workdir)).toMatchObject({ ok: true });
    // nor does a DoD on the source: the worktrees live outside the repository
    expect(await gate(root)).toMatchObject({ ok: true });
    expect(b.path.startsWith(`${root}/`)).toBe(false);
  });

  it('worktreesDir puts the worktrees elsewhere (outside the workspace); records stay in the state dir', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const elsewhere = join(makeRepo(), 'worktrees');
    const isolation = await openGitIsolation(root, {
      store: openFsStore({ workspace: root }),
      worktreesDir: elsewhere,
    });
    if (!isolation) throw new Error('no repository');
    const wt = await isolation.ensureWorktree('g/t');
    expect(wt.path).toBe(join(elsewhere, 'g/t'));
    put(wt.workdir, 'src/a.js', 'a2\n');
    expect((await isolation.apply(request('g/t', ['src/a.js']))).status).toBe('applied');
    expect((await isolation.clean()).removed.map((l) => l.taskId)).toEqual(['g/t']);
    expect(existsSync(wt.path)).toBe(false);
  });
});

describe('a workspace in a subdirectory of the repository', () => {
  it('works in <worktree>/<prefix>, reports workspace-relative paths and applies at the repository root', async () => {
    const root = makeRepo({ 'app/src/a.js': 'a\n', 'other/b.js': 'b\n' });
    const workspace = join(root, 'app');
    const isolation = await openGitIsolation(workspace, {
      store: openFsStore({ workspace: workspace }),
    });
    if (!isolation) throw new Error('no repository');
    const wt = await isolation.ensureWorktree('g/t');
    expect(wt.workdir).toBe(join(wt.path, 'app'));
    expect(wt.path).toBe(join(await worktreesDirOf(workspace), 'g/t'));
    put(wt.workdir, 'src/a.js', 'a by task\n');
    put(wt.path, 'other/b.js', 'outside the workspace\n');
    expect(await isolation.inspect('g/t', ['src/a.js'])).toMatchObject({
      changed: ['src/a.js', '../other/b.js'],
      outside: ['../other/b.js'],
    });
    expect(await isolation.revertOutside('g/t', ['src/a.js'])).toEqual(['../other/b.js']);
    expect(await isolation.apply(request('g/t', ['src/a.js']))).toMatchObject({
      status: 'applied',
      files: ['src/a.js'],
    });
    expect(read(root, 'app/src/a.js')).toBe('a by task\n');
    expect(status(root)).toBe('');
  });
});
