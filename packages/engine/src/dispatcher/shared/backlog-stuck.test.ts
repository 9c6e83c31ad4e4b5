import type { BacklogStatus, BacklogView } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { stuckInBacklog } from './backlog-stuck.js';

const views = (rows: [string, BacklogStatus, string[]?][]) =>
  new Map<string, BacklogView>(
    rows.map(([task, status, dependsOn]) => [task, { task, status, dependsOn: dependsOn ?? [] }]),
  );

describe('stuckInBacklog', () => {
  it('a blocked task and its whole waiting dependency closure are stuck; the rest can move', () => {
    const stuck = stuckInBacklog(
      views([
        ['g/a', 'blocked'],
        ['g/b', 'waiting', ['g/a']],
        ['g/c', 'waiting', ['g/b', 'g/d']],
        ['g/d', 'taken'],
        ['g/e', 'waiting', ['g/d']],
        ['g/f', 'ready'],
        ['g/g', 'archived'],
        ['g/h', 'waiting', ['g/g', 'g/d']],
      ]),
    );
    expect([...stuck].sort()).toEqual(['g/a', 'g/b', 'g/c']);
  });

  it('a dependency the backlog does not have, or a cycle, holds its dependents for good', () => {
    const stuck = stuckInBacklog(
      views([
        ['g/a', 'waiting', ['g/gone']],
        ['g/x', 'waiting', ['g/y']],
        ['g/y', 'waiting', ['g/x']],
      ]),
    );
    expect([...stuck].sort()).toEqual(['g/a', 'g/x', 'g/y']);
  });
});
