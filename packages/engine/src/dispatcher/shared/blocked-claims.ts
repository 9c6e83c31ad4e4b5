import type { Fence } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { taskIsolationMode } from '../worktree/task-isolation-mode.js';

/**
 * A blocked task delays only its own dependency closure. Under worktree isolation its work
 * is in its worktree, not on the source, so nothing needs its claim: it is released, and the
 * tasks sharing a file with it go on. A retry takes the claim again at admission (waiting
 * while another task holds it) and meets the apply like any other task. In the shared
 * workspace its unfinished changes sit in the claimed files themselves: the claim stays, and
 * status and the dry run name the tasks waiting on it.
 *
 * On a shared backlog a task's claims are released with its block's record instead, fenced
 * by its lease ({@link releaseBlockedClaim}): a release after the task moved on (retried and
 * taken by another machine, which holds the same claims under the same id) must not free
 * paths that machine works on.
 */
export async function releaseBlockedClaims(ctx: DispatchContext): Promise<void> {
  if (ctx.shared) return;
  const holders = new Set(ctx.claimIndex.values());
  for (const rt of ctx.tasks.values())
    if (rt.state.blocked && holders.has(rt.id)) await releaseBlockedClaim(ctx, rt);
}

/**
 * Releases a blocked task's claims (under worktree isolation), every path the store holds
 * for it, this run's index or not: a task taken over blocked from a machine that died holds
 * the claims that machine took. With `fence`, refused (`SY_LEASE_LOST`) once the lease moved.
 */
export async function releaseBlockedClaim(
  ctx: DispatchContext,
  rt: TaskRuntime,
  fence?: Fence,
): Promise<void> {
  if (!worksInWorktree(ctx, rt)) return;
  const indexed = [...ctx.claimIndex.values()].includes(rt.id);
  const paths = await ctx.claims.release(rt.id, fence ? { fence } : undefined);
  for (const [path, holder] of ctx.claimIndex) if (holder === rt.id) ctx.claimIndex.delete(path);
  if (!indexed && paths.length === 0) return;
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'claim-released',
    detail: `blocked: its claim is released (its work stays in its worktree; a retry claims again)`,
    files: paths,
  });
}

function worksInWorktree(ctx: DispatchContext, rt: TaskRuntime): boolean {
  return rt.task.runner !== 'local' && taskIsolationMode(ctx, rt) === 'worktree';
}
