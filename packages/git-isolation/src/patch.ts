import type { WorktreeRecord } from '@switchyard/core';
import { git } from './git.js';

/**
 * The task's whole state (agent commits, staged, unstaged and new files) against its base,
 * as a binary patch with repository-relative paths. Only the task's own worktree index is
 * touched (every file staged, as an apply's commit step does); the source never is.
 */
export async function worktreePatch(record: WorktreeRecord): Promise<string> {
  await git(record.path, ['add', '-A']);
  const diff = await git(record.path, [
    'diff',
    '--cached',
    '--binary',
    '--no-renames',
    '--no-color',
    record.baseCommit,
    '--',
  ]);
  return diff.stdout;
}
