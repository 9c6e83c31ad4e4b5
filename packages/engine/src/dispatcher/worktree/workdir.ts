import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * Where a task's agents and its definition-of-done gate run: its own worktree under
 * isolation "worktree", the shared workspace otherwise.
 */
export function workdirOf(ctx: DispatchContext, rt: TaskRuntime): string {
  return rt.state.isolation?.workdir ?? ctx.workspace;
}
