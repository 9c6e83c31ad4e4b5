import type { TaskState } from '@switchyard/core';

/**
 * Disk the tasks' worktrees take, as last measured (the dispatcher's worktree-disk module):
 * every task not archived yet, blocked ones included (their worktrees are kept as evidence).
 * The figure the disk cap (`isolation.maxDiskBytes`) is held against, in the run and in status.
 */
export function worktreeBytes(states: readonly Pick<TaskState, 'phase' | 'isolation'>[]): number {
  return states.reduce(
    (sum, s) => sum + (s.phase === 'done' ? 0 : (s.isolation?.disk?.bytes ?? 0)),
    0,
  );
}
