import { describe, expect, it } from 'vitest';
import { resolveIsolation } from './isolation-mode.js';

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
