import type { DispatchContext, TaskRuntime } from '../types.js';
import { taskIsolationMode } from '../worktree/task-isolation-mode.js';

/**
 * A blocked task delays only its own dependency closure. Under worktree isolation its work
 * is in its worktree, not on the source, so nothing needs its claim: it is released, and the
 * tasks sharing a file with it go on. A retry takes the claim again at admission (waiting
 * while another task holds it) and meets the apply like any other task. In the shared
 * workspace its unfinished changes sit in the claimed files themselves: the claim stays, and
 * status and the dry run name the tasks waiting on it.
 */
export async function releaseBlockedClaims(ctx: DispatchContext): Promise<void> {
  const holders = new Set(ctx.claimIndex.values());
  for (const rt of ctx.tasks.values()) {
    if (!rt.state.blocked || !holders.has(rt.id) || !worksInWorktree(ctx, rt)) continue;
    const paths = await ctx.claims.release(rt.id);
    for (const [path, holder] of ctx.claimIndex) if (holder === rt.id) ctx.claimIndex.delete(path);
    ctx.bus.emit({
      type: 'task.isolation',
      task: rt.id,
      step: 'claim-released',
      detail: `blocked: its claim is released (its work stays in its worktree; a retry claims again)`,
      files: paths,
    });
  }
}

function worksInWorktree(ctx: DispatchContext, rt: TaskRuntime): boolean {
  return rt.task.runner !== 'local' && taskIsolationMode(ctx, rt) === 'worktree';
}
