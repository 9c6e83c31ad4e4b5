import { describe, expect, it } from 'vitest';
import { applyJournalSchema } from './schema.js';

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
