import { newTaskState } from '@switchyard/core';
import { persist } from '../context.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';

/**
 * A task just taken from the shared backlog whose commit is on the remote branch already: a
 * holder pushed it and died before recording it. Nothing more is paid for it: the task goes
 * straight to its archive (which writes `complete.log`, and the backlog records it archived),
 * with that commit as its landing. False when its commit is not there (or no remote landing):
 * the task runs as usual.
 */
export async function recordLandedTakeover(
  ctx: DispatchContext,
  rt: TaskRuntime,
): Promise<boolean> {
  const landed = await isolationOf(ctx)?.landedOnRemote?.(rt.id);
  if (!landed) return false;
  const { planLoop } = rt.state;
  rt.state = newTaskState(rt.id, ctx.now());
  rt.state.planLoop = planLoop;
  rt.state.phase = 'archive';
  rt.state.isolation = {
    branch: '',
    path: '',
    workdir: '',
    sourceBranch: landed.sourceBranch,
    baseCommit: landed.parent,
    sourceCommit: landed.commit,
    foundOnRemote: true,
    rolledBack: [],
  };
  if (rt.files) rt.task = rt.files;
  await persist(ctx, rt);
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'applied',
    detail: `its commit ${landed.commit.slice(0, 12)} is on ${landed.sourceBranch} already (pushed by the machine that held it before, which died before recording it): recorded without running it again`,
    files: [],
    commit: landed.commit,
  });
  return true;
}
