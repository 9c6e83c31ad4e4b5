import type { TaskId, WorkspaceIsolation } from '@switchyard/core';
import { applyTask } from './apply.js';
import { cleanWorktrees, listWorktrees } from './cleanup.js';
import { inspectWorktree, revertOutside } from './inspect.js';
import { layoutOf } from './layout.js';
import { worktreePatch } from './patch.js';
import { readRecord } from './records.js';
import { recoverApplies } from './recover.js';
import { findRepository } from './repository.js';
import type { TimingSink } from './timing.js';
import {
  ensureWorktree,
  type IsolationContext,
  markBlocked,
  recreateWorktree,
  removeWorktree,
} from './worktree.js';

/** Options of {@link openGitIsolation}. */
export interface GitIsolationOptions {
  /** Dispatcher state directory; default `<workspace>/agent-task/.switchyard`. */
  stateDir?: string;
  /**
   * Root of the task worktrees; default `<stateDir>/worktrees`. Point it outside the
   * workspace when the project's tools walk the tree without honouring `.gitignore`.
   */
  worktreesDir?: string;
  /** How long an apply waits for another apply of the same repository (default a day). */
  lockTimeoutMs?: number;
  /** Receives each apply's wall time per span (`inspect`, `wait`, `journal`, `commit`,
   * `replay`, `advance`, `check`, `finish`, in ms): the isolation bench prints them. */
  onTiming?: TimingSink;
}

/**
 * Task isolation with git for `workspace`, or undefined when the workspace is not inside
 * a git work tree (then the run uses isolation "none"; see core `resolveIsolation`).
 */
export async function openGitIsolation(
  workspace: string,
  options: GitIsolationOptions = {},
): Promise<WorkspaceIsolation | undefined> {
  const repo = await findRepository(workspace);
  if (!repo) return undefined;
  const ctx: IsolationContext = {
    repo,
    layout: layoutOf(repo, options),
    ...(options.onTiming ? { onTiming: options.onTiming } : {}),
  };
  const recordOf = async (taskId: TaskId) => {
    const record = await readRecord(ctx.layout, taskId);
    if (!record)
      throw new Error(`task ${taskId} has no worktree (ensureWorktree is called at admission)`);
    return record;
  };
  const cache = new Map<TaskId, Awaited<ReturnType<typeof ensureWorktree>>>();
  const remember = <T extends { taskId: TaskId }>(record: T) => {
    cache.set(record.taskId, record as never);
    return record;
  };
  return {
    ensureWorktree: async (taskId) => remember(await ensureWorktree(ctx, taskId)),
    worktreeOf: (taskId) => cache.get(taskId),
    inspect: async (taskId, writeSet) => inspectWorktree(ctx, await recordOf(taskId), writeSet),
    revertOutside: async (taskId, writeSet) => revertOutside(ctx, await recordOf(taskId), writeSet),
    apply: (request) =>
      applyTask(ctx, request, {
        ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      }),
    recreateWorktree: async (taskId) => remember(await recreateWorktree(ctx, taskId)),
    patch: async (taskId) => worktreePatch(await recordOf(taskId)),
    removeWorktree: async (taskId) => {
      cache.delete(taskId);
      await removeWorktree(ctx, taskId);
    },
    markBlocked: (taskId) => markBlocked(ctx, taskId),
    recover: () =>
      recoverApplies(ctx, {
        ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      }),
    list: () => listWorktrees(ctx),
    clean: (cleanOptions) => cleanWorktrees(ctx, cleanOptions),
  };
}
