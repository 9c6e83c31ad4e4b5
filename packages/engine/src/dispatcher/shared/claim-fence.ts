import type { FencedWrite } from '@switchyard/core';
import type { DispatchContext } from '../types.js';

/**
 * What a claim write of the task carries: on a shared backlog its lease's fence (claims are
 * kept under the task's id, so a dispatcher that lost the task would otherwise take or free
 * the paths of the machine that holds it now); nothing on a single machine, as before.
 */
export async function claimWriteOf(
  ctx: DispatchContext,
  task: string,
): Promise<FencedWrite | undefined> {
  return ctx.shared ? { fence: await ctx.leases.fenceFor(task) } : undefined;
}
