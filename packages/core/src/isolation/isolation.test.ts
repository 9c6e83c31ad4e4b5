import { describe, expect, it } from 'vitest';
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
