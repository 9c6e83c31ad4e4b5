import type { WorkspaceIsolation } from '@switchyard/core';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';

/**
 * The paths a task may change, for the write-set check and the apply: its declared write set,
 * or under PLAN.md `write_set: any` every file its worktree changed (git metadata is still
 * refused by the isolation's own check). Such a task takes no claim: tasks that touch the
 * same files meet at the apply, which is serialized per repository and sends the later one
 * back to its worker on a conflict.
 */
export async function allowedPaths(
  isolation: WorkspaceIsolation,
  rt: TaskRuntime,
): Promise<string[]> {
  if (!rt.task.writeSetAny) return rt.task.writeSet.map((e) => e.path);
  return (await isolation.inspect(rt.id, [])).changed;
}

/**
 * `write_set: any` needs a worktree to contain the agent: without isolation the task is
 * blocked before any agent runs (true when it was).
 */
export function blockUnisolatedAnyWriteSet(ctx: DispatchContext, rt: TaskRuntime): boolean {
  if (!rt.task.writeSetAny || isolationOf(ctx)) return false;
  blockTask(ctx, rt, {
    stage: 'worker',
    reason:
      'PLAN.md says `write_set: any`, which needs worktree isolation, but this run has none (isolation "none", or the workspace is not in a git repository)',
    evidence: [
      'list the files the task may change under `## Modified Files Summary` and remove `write_set: any`, or run in a git repository with isolation "worktree"',
    ],
  });
  return true;
}
