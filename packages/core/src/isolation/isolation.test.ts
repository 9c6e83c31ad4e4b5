import { describe, expect, it } from 'vitest';
import { projectConfigSchema } from '../config/schema.js';
import { issuesToProblems } from '../zod-problems.js';
import { isolationSettings, parseByteSize } from './config-schema.js';
import { resolveIsolation } from './mode.js';
import { applyJournalSchema } from './schema.js';

describe('resolveIsolation', () => {
  it('defaults to a worktree per task in a git repository, silently', () => {
    expect(resolveIsolation(undefined, true)).toEqual({ mode: 'worktree' });
    expect(resolveIsolation('worktree', true)).toEqual({ mode: 'worktree' });
  });

  it('falls back to the shared workspace outside git, with a warning that says how to isolate', () => {
    const auto = resolveIsolation(undefined, false);
    expect(auto.mode).toBe('none');
    expect(auto.warning).toMatch(/not in a git repository.*git init/);
    expect(resolveIsolation('worktree', false).warning).toMatch(/as configured$/);
  });

  it('warns when isolation is turned off', () => {
    expect(resolveIsolation('none', true)).toMatchObject({
      mode: 'none',
      warning: expect.stringMatching(/share the workspace/),
    });
  });
});

describe('isolation config keys', () => {
  it('accepts isolation and writeSet, rejects other values', () => {
    expect(
      projectConfigSchema.parse({ isolation: 'none', writeSet: 'revert-outside' }),
    ).toMatchObject({
      isolation: 'none',
      writeSet: 'revert-outside',
    });
    expect(projectConfigSchema.parse({}).writeSet).toBe('correct');
    expect(projectConfigSchema.safeParse({ isolation: 'container' }).success).toBe(false);
    expect(projectConfigSchema.safeParse({ writeSet: 'ignore' }).success).toBe(false);
  });

  it('takes today’s strings or {mode, setup, copy, dir, maxDiskBytes}, normalized alike', () => {
    expect(isolationSettings(undefined)).toMatchObject({ mode: undefined, setup: [], copy: [] });
    expect(isolationSettings('none').mode).toBe('none');
    const parsed = projectConfigSchema.parse({
      isolation: {
        setup: [['pnpm', 'install', '--frozen-lockfile', '--prefer-offline']],
        copy: ['.env', 'config/local.*'],
        dir: '../worktrees',
        maxDiskBytes: '20GB',
      },
    });
    expect(isolationSettings(parsed.isolation)).toEqual({
      mode: undefined,
      setup: [['pnpm', 'install', '--frozen-lockfile', '--prefer-offline']],
      setupTimeoutMs: 1_800_000,
      copy: ['.env', 'config/local.*'],
      dir: '../worktrees',
      maxDiskBytes: 20e9,
    });
    expect(parseByteSize('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseByteSize('lots')).toBeUndefined();
  });

  it('a bad isolation value is named by its path, with what to write instead', async () => {
    const problems = (isolation: unknown) => {
      const parsed = projectConfigSchema.safeParse({ isolation }, { reportInput: true });
      if (parsed.success) return [];
      return issuesToProblems(parsed.error.issues, 'SY_CONFIG_INVALID').map(
        (p) => `${p.path}: ${p.message} (${p.hint})`,
      );
    };
    expect(problems('container')).toEqual([
      expect.stringMatching(
        /^isolation: .*expected one of "worktree"\|"none" \(use one of: "worktree", "none"\)$/,
      ),
    ]);
    expect(problems({ setup: ['npm ci'] })).toEqual([
      expect.stringMatching(/^isolation\.setup\.0: .*expected array/),
    ]);
    expect(problems({ copy: ['../secrets/.env', '.git/config'], maxDiskBytes: 'lots' })).toEqual([
      expect.stringMatching(
        /^isolation\.copy\.0: not a workspace-relative file or glob \(name files inside/,
      ),
      expect.stringMatching(/^isolation\.copy\.1: not a workspace-relative/),
      expect.stringMatching(/^isolation\.maxDiskBytes: /),
    ]);
    expect(problems({ mode: 'worktree', shell: true })).toEqual([
      expect.stringMatching(/^isolation\.shell: unknown key/),
    ]);
  });
});

describe('apply journal schema', () => {
  it('rejects an unknown step and a short commit id', () => {
    const journal = {
      schema: 1,
      taskId: 'g/t',
      sourceBranch: 'main',
      baseCommit: 'a'.repeat(40),
      step: 'advance',
      history: [{ step: 'advance', at: '2026-01-01T00:00:00Z' }],
    };
    expect(applyJournalSchema.parse(journal).files).toEqual([]);
    expect(applyJournalSchema.safeParse({ ...journal, step: 'push' }).success).toBe(false);
    expect(applyJournalSchema.safeParse({ ...journal, baseCommit: 'abc' }).success).toBe(false);
  });
});
