import type { TaskIsolation, WorkspaceIsolation } from '@switchyard/core';
import { WORKTREE_STAGES } from '../../lifecycle/index.js';
import { persist, persistLater } from '../context.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { taskIsolationMode, worktreeTaskWithoutIsolation } from './task-isolation-mode.js';
import { measureWorktreeDisk } from './worktree-disk.js';
import { setUpWorktree } from './worktree-setup.js';

/** Phases in which the task's worktree must exist: the table's (after the apply it is only
 * cleaned up). */
const WORKTREE_PHASES: ReadonlySet<string> = new Set(WORKTREE_STAGES);

/** The run's isolation, or undefined under isolation "none". */
export function isolationOf(ctx: DispatchContext): WorkspaceIsolation | undefined {
  return ctx.options.isolation;
}

/**
 * Creates the task's worktree at admission (from the source branch's current tip, so it
 * holds every archived predecessor's commit), or re-attaches to it after a restart (moving
 * it first when an earlier version put it elsewhere), and sets a new one up
 * (./worktree-setup.ts). The branch, path and base commit are persisted in the task's state
 * before any agent runs. False when the stage must not run: the set-up failed (the task is
 * blocked) or was interrupted.
 */
export async function ensureTaskWorktree(ctx: DispatchContext, rt: TaskRuntime): Promise<boolean> {
  const isolation = isolationOf(ctx);
  if (!WORKTREE_PHASES.has(rt.state.phase)) return true;
  // A `runner: local` command runs in the source workspace, serialized with applies: it has
  // no worktree, so no write-set check or apply either (the facts see it as not isolated).
  if (rt.task.runner === 'local') return true;
  if ((await keepStartMode(ctx, rt)) === 'none') return true;
  if (!isolation) throw worktreeTaskWithoutIsolation(rt);
  const record = await isolation.ensureWorktree(rt.id);
  const before = rt.state.isolation;
  const next: TaskIsolation = {
    ...before,
    rolledBack: before?.rolledBack ?? [],
    branch: record.branch,
    path: record.path,
    workdir: record.workdir,
    sourceBranch: record.sourceBranch,
    baseCommit: record.baseCommit,
  };
  if (JSON.stringify(next) !== JSON.stringify(before)) {
    rt.state.isolation = next;
    await persist(ctx, rt);
    const moved = before && before.path !== record.path && before.baseCommit === record.baseCommit;
    if (before?.baseCommit !== record.baseCommit || moved)
      ctx.bus.emit({
        type: 'task.isolation',
        task: rt.id,
        step: 'worktree',
        detail: moved
          ? `worktree moved from ${before.path} to ${record.path}`
          : `worktree ${record.path} on ${record.branch} from ${record.sourceBranch} at ${record.baseCommit.slice(0, 12)}`,
        commit: record.baseCommit,
      });
  }
  const fresh = !record.setUpAt;
  if (!(await setUpWorktree(ctx, rt, record))) return false;
  await measureWorktreeDisk(
    ctx,
    rt,
    fresh && (ctx.options.worktreeSetup?.commands.length ?? 0) > 0,
  );
  return true;
}

/** Records the task's isolation mode at its first stage (see ./task-isolation-mode.ts). */
async function keepStartMode(ctx: DispatchContext, rt: TaskRuntime): Promise<'worktree' | 'none'> {
  const mode = taskIsolationMode(ctx, rt);
  if (rt.state.isolationMode !== mode) {
    rt.state.isolationMode = mode;
    // Written with the worktree's record or the first attempt's `starting` record (see
    // persistLater); a local command runs before any write of its own.
    if (rt.task.runner === 'local') await persist(ctx, rt);
    else persistLater(rt);
  }
  if (mode === 'none' && isolationOf(ctx) && !rt.sharedWorkspaceAnnounced) {
    rt.sharedWorkspaceAnnounced = true;
    ctx.bus.emit({
      type: 'task.isolation',
      task: rt.id,
      step: 'shared-workspace',
      detail:
        'started in the shared workspace (no worktree then): it finishes there, its changes stay in the source tree; later tasks get worktrees',
    });
  }
  return mode;
}

/** A blocked task's worktree is kept as evidence (listed by `status`, removed by `clean --blocked`). */
export async function keepBlockedWorktree(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const isolation = isolationOf(ctx);
  if (!isolation || !rt.state.blocked || !rt.state.isolation) return;
  await isolation.markBlocked(rt.id);
  // Kept as evidence: its disk counts until `clean --blocked` removes it.
  await measureWorktreeDisk(ctx, rt, true);
}
