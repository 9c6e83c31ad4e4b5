import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectConfigSchema } from '@switchyard/config';
import type { Problem } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { PREFLIGHT_CHECKS } from './checks.js';
import {
  type PreflightCheck,
  type PreflightContext,
  preflightError,
  runPreflightChecks,
} from './registry.js';

// Real git in temporary repositories; the checks run in-process. A git identity is never
// taken from the machine: HOME and GIT_CONFIG_GLOBAL point into each test's own folder.

/** An environment whose git sees no global or system config (no identity). */
function isolatedEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'sy-preflight-home-'));
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    // git falls back to user@host; this machine's host has no domain, so no email is guessed.
    EMAIL: '',
  };
}

const git = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: 'pipe' }).trim();

/** Runs a problem's fix exactly as printed, through the shell a user would paste it into. */
const applyFix = (problem: Problem | undefined, env: NodeJS.ProcessEnv) => {
  expect(problem?.fix).toBeTruthy();
  execFileSync('sh', ['-c', problem?.fix ?? 'false'], { env, stdio: 'pipe' });
};

function repo(env: NodeJS.ProcessEnv, files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sy-preflight-'));
  git(dir, env, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

const withIdentity = (dir: string, env: NodeJS.ProcessEnv) => {
  git(dir, env, 'config', 'user.name', 'Test');
  git(dir, env, 'config', 'user.email', 'test@example.com');
};

function context(
  workspace: string,
  env: NodeJS.ProcessEnv,
  extra: Partial<PreflightContext> = {},
): PreflightContext {
  return {
    workspace,
    mode: 'run',
    config: projectConfigSchema.parse({}),
    isolation: 'worktree',
    tasks: [{ id: 'g/a', writeSet: [{ path: 'src.txt' }] }],
    states: new Map(),
    maxParallel: 3,
    targets: [],
    foundProblems: [],
    pushes: false,
    env,
    ...extra,
  };
}

const codes = (problems: Problem[]) => problems.map((p) => p.code);

describe('preflight: the git checks, with the fix each prints', { timeout: 60_000 }, () => {
  it('no identity and no commit: both reported at once, and the printed fixes mend them', async () => {
    const env = isolatedEnv();
    const dir = repo(env, { 'src.txt': 'a\n' });
    const first = await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS);
    expect(codes(first)).toEqual(['SY_PREFLIGHT_GIT_IDENTITY', 'SY_PREFLIGHT_NO_COMMIT']);
    const [identity, commit] = first;
    expect(identity?.message).toMatch(/user\.name and user\.email not set/);
    expect(identity?.fix).toBe(
      'git config --global user.name "Your Name" && git config --global user.email "you@example.com"',
    );
    expect(commit?.fix).toBe(`git -C ${dir} add -A && git -C ${dir} commit -m 'Initial commit'`);
    const refused = preflightError(first);
    expect(refused?.code).toBe('SY_PREFLIGHT_FAILED');
    expect(refused?.problems).toHaveLength(2);

    applyFix(identity, env); // writes only this test's GIT_CONFIG_GLOBAL
    applyFix(commit, env);
    expect(await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS)).toEqual([]);
  });

  it('a detached HEAD: switch back to the branch at HEAD', async () => {
    const env = isolatedEnv();
    const dir = repo(env, { 'src.txt': 'a\n' });
    withIdentity(dir, env);
    git(dir, env, 'add', '-A');
    git(dir, env, 'commit', '-qm', 'init');
    git(dir, env, 'switch', '-q', '--detach');
    const found = await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS);
    expect(codes(found)).toEqual(['SY_PREFLIGHT_DETACHED_HEAD']);
    expect(found[0]?.fix).toBe(`git -C ${dir} switch main`);
    applyFix(found[0], env);
    expect(await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS)).toEqual([]);
  });

  it('uncommitted changes on a write set: stash them (a task in its apply is not checked)', async () => {
    const env = isolatedEnv();
    const dir = repo(env, { 'src.txt': 'a\n', 'other.txt': 'o\n' });
    withIdentity(dir, env);
    git(dir, env, 'add', '-A');
    git(dir, env, 'commit', '-qm', 'init');
    writeFileSync(join(dir, 'src.txt'), 'my edit\n');
    writeFileSync(join(dir, 'other.txt'), 'not in a write set\n');
    const found = await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS);
    expect(codes(found)).toEqual(['SY_PREFLIGHT_DIRTY_WRITE_SET']);
    expect(found[0]?.message).toMatch(/write set of g\/a: src\.txt/);
    // Once the task is being applied, its own change may be what makes the file differ.
    const applying = new Map([['g/a', { phase: 'apply' } as never]]);
    expect(
      await runPreflightChecks(context(dir, env, { states: applying }), PREFLIGHT_CHECKS),
    ).toEqual([]);
    // A task that started in the shared workspace (before `git init`) made those changes.
    const shared = new Map([['g/a', { phase: 'worker', isolationMode: 'none' } as never]]);
    expect(
      await runPreflightChecks(context(dir, env, { states: shared }), PREFLIGHT_CHECKS),
    ).toEqual([]);
    applyFix(found[0], env);
    expect(await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS)).toEqual([]);
    expect(git(dir, env, 'stash', 'list')).toMatch(/stash@\{0\}/);
  });

  it('pushing without an upstream: push once with -u', async () => {
    const env = isolatedEnv();
    const origin = mkdtempSync(join(tmpdir(), 'sy-preflight-origin-'));
    git(origin, env, 'init', '-q', '--bare');
    const dir = repo(env, { 'src.txt': 'a\n' });
    withIdentity(dir, env);
    git(dir, env, 'add', '-A');
    git(dir, env, 'commit', '-qm', 'init');
    git(dir, env, 'remote', 'add', 'origin', origin);
    expect(await runPreflightChecks(context(dir, env), PREFLIGHT_CHECKS)).toEqual([]);
    const found = await runPreflightChecks(context(dir, env, { pushes: true }), PREFLIGHT_CHECKS);
    expect(codes(found)).toEqual(['SY_PREFLIGHT_NO_UPSTREAM']);
    expect(found[0]?.fix).toBe(`git -C ${dir} push -u origin main`);
    applyFix(found[0], env);
    expect(await runPreflightChecks(context(dir, env, { pushes: true }), PREFLIGHT_CHECKS)).toEqual(
      [],
    );
  });

  it('more worktrees than the disk holds: run fewer at once', async () => {
    const env = isolatedEnv();
    const dir = repo(env, {});
    withIdentity(dir, env);
    mkdirSync(join(dir, 'big'));
    writeFileSync(join(dir, 'big', 'blob.bin'), Buffer.alloc(8 * 1024 ** 2, 1));
    git(dir, env, 'add', '-A');
    git(dir, env, 'commit', '-qm', 'init');
    // A fixed free figure (the free space of a shared disk moves while the test runs): 1 GiB
    // holds the 256 MiB headroom and 96 checkouts of 8 MiB.
    const measured: string[] = [];
    const diskFree = async (path: string) => {
      measured.push(path);
      return 1024 ** 3;
    };
    const tasks = Array.from({ length: 200 }, (_, i) => ({ id: `g/t${i}`, writeSet: [] }));
    const check = (maxParallel: number) =>
      runPreflightChecks(context(dir, env, { tasks, maxParallel, diskFree }), PREFLIGHT_CHECKS);
    const found = await check(0);
    expect(codes(found)).toEqual(['SY_PREFLIGHT_DISK_SPACE']);
    expect(found[0]?.message).toContain(`1024.0 MiB free under ${measured[0]}`);
    expect(found[0]?.fix).toBe('switchyard run --max-parallel 96');
    expect(await check(96)).toEqual([]);
    expect(codes(await check(97))).toEqual(['SY_PREFLIGHT_DISK_SPACE']);
  });

  it('outside git, or under isolation "none", the git checks have nothing to check', async () => {
    const env = isolatedEnv();
    const plain = mkdtempSync(join(tmpdir(), 'sy-preflight-plain-'));
    expect(await runPreflightChecks(context(plain, env), PREFLIGHT_CHECKS)).toEqual([]);
    const dir = repo(env); // no identity, no commit
    expect(
      await runPreflightChecks(context(dir, env, { isolation: 'none' }), PREFLIGHT_CHECKS),
    ).toEqual([]);
  });
});

describe('preflight: the registry', () => {
  const ok: PreflightCheck = { name: 'ok', what: 'nothing', run: async () => [] };
  const live: PreflightCheck = {
    name: 'live',
    what: 'runs a command',
    liveOnly: true,
    run: async () => [{ code: 'SY_PREFLIGHT_FAILED', message: 'ran', severity: 'error' }],
  };
  const broken: PreflightCheck = {
    name: 'broken',
    what: 'a check with a bug',
    run: async () => {
      throw new Error('boom');
    },
  };

  it('a dry run skips the checks that start processes', async () => {
    const env = isolatedEnv();
    const ctx = context(tmpdir(), env, { mode: 'dry-run' });
    expect(await runPreflightChecks(ctx, [ok, live])).toEqual([]);
    expect(codes(await runPreflightChecks({ ...ctx, mode: 'run' }, [ok, live]))).toEqual([
      'SY_PREFLIGHT_FAILED',
    ]);
  });

  it('a check that throws is a problem, and the others still report', async () => {
    const found = await runPreflightChecks(context(tmpdir(), isolatedEnv()), [broken, live]);
    expect(found.map((p) => p.message)).toEqual([
      'the broken check (a check with a bug) could not run: boom',
      'ran',
    ]);
  });

  it('warnings alone do not stop a run; problems sharing one code keep it', () => {
    const warning: Problem = {
      code: 'SY_CATALOG_NOT_EXECUTABLE',
      message: 'w',
      severity: 'warning',
    };
    expect(preflightError([warning])).toBeUndefined();
    const error = { ...warning, severity: 'error' as const };
    expect(preflightError([warning, error, error])?.code).toBe('SY_CATALOG_NOT_EXECUTABLE');
  });
});
