import type { Snapshot } from '@switchyard/store-fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedPaths } from './workspace-snapshot.js';

// Paths that name properties every object inherits are among them: a snapshot is a plain object.
const PATHS = ['a.txt', 'b/c.txt', 'b/d.txt', 'e', 'constructor', 'toString'];

const genSnapshot = fc
  .array(
    fc.record({
      path: fc.constantFrom(...PATHS),
      sha256: fc.constantFrom('h1', 'h2'),
      mode: fc.option(fc.constantFrom(0o644, 0o755), { nil: undefined }),
    }),
    { maxLength: PATHS.length },
  )
  .map((entries) => {
    const snapshot: Snapshot = {};
    for (const e of entries)
      snapshot[e.path] = {
        size: 1,
        mtimeMs: 1,
        ino: 1,
        sha256: e.sha256,
        ...(e.mode === undefined ? {} : { mode: e.mode }),
      };
    return snapshot;
  });

/** The paths of either snapshot, each once, whose content or permission bits differ. */
function reference(before: Snapshot, after: Snapshot): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths]
    .filter((p) => {
      const b = before[p];
      const a = after[p];
      if (b?.sha256 !== a?.sha256) return true;
      return b?.mode !== undefined && a?.mode !== undefined && b.mode !== a.mode;
    })
    .sort();
}

describe('changedPaths', () => {
  it('finds what the union of both snapshots’ paths finds, sorted, each path once', () => {
    fc.assert(
      fc.property(genSnapshot, genSnapshot, (before, after) => {
        expect(changedPaths(before, after)).toEqual(reference(before, after));
      }),
      { numRuns: 500 },
    );
  });
});
