import { issuesToProblems, parseByteSize } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { isolationSettings } from './isolation-schema.js';
import { projectConfigSchema } from './schema.js';

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
