import { persist } from '../context.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** How old a worktree's disk figure may get before the next stage measures it again. */
const MEASURE_EVERY_MS = 60_000;

/**
 * Measures the disk the task's worktree takes (a walk of it, by the isolation) into its state,
 * where `status`, the monitor and the disk cap (`isolation.maxDiskBytes`, see admission) read
 * it: after a set-up (which installs the dependencies) and before a stage when the figure is
 * older than a minute, so a run never walks every worktree on every pass.
 */
export async function measureWorktreeDisk(
  ctx: DispatchContext,
  rt: TaskRuntime,
  force = false,
): Promise<void> {
  const isolation = ctx.options.isolation;
  const facts = rt.state.isolation;
  if (!isolation || !facts) return;
  const last = facts.disk ? Date.parse(facts.disk.at) : Number.NEGATIVE_INFINITY;
  if (!force && ctx.now().getTime() - last < MEASURE_EVERY_MS) return;
  const use = await isolation.diskUse(rt.id);
  if (use)
    facts.disk = { bytes: use.bytes, sharedBytes: use.sharedBytes, at: ctx.now().toISOString() };
  else if (facts.disk) delete facts.disk;
  else return;
  await persist(ctx, rt);
}

/**
 * At the start of a run: every worktree a task keeps (active, or blocked and kept as
 * evidence) is measured again, and one `switchyard clean` removed meanwhile counts no more.
 */
export async function measureKeptWorktrees(ctx: DispatchContext): Promise<void> {
  for (const rt of ctx.tasks.values())
    if (rt.state.isolation && rt.state.phase !== 'done') await measureWorktreeDisk(ctx, rt, true);
}
