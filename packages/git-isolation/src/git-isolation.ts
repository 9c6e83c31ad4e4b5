import type { TaskId, WorkspaceIsolation } from '@switchyard/core';
import { applyTask } from './apply.js';
import { cleanWorktrees, listWorktrees } from './cleanup.js';
import { diskUsage } from './disk-usage.js';
import { inspectWorktree, revertOutside } from './inspect.js';
import type { IsolationContext } from './isolation-context.js';
import { layoutOf } from './layout.js';
import { worktreePatch } from './patch.js';
import { type IsolationStore, readRecord } from './records.js';
import { recoverApplies } from './recover.js';
import { relocateAll } from './relocate.js';
import { findRepository } from './repository.js';
import type { TimingSink } from './timing.js';
import {
  ensureWorktree,
  markBlocked,
  markSetUp,
  recreateWorktree,
  removeWorktree,
} from './worktree.js';

/** Options of {@link openGitIsolation}. */
export interface GitIsolationOptions {
  /**
   * The run's store: worktree records and apply journals are written through its isolation
   * port (each before the step it describes), task states read through its task port.
   */
  store: IsolationStore;
  /** The state folder the local files go under (metadata snapshots, the scratch index);
   * default `<workspace>/agent-task/.switchyard`. */
  stateDir?: string;
  /**
   * The folder of this workspace's task worktrees (`<group>/<task>` inside it); default
   * `<dir>/<repository id>`.
   */
  worktreesDir?: string;
  /**
   * The folder holding every repository's task worktrees (config `isolation.dir`, relative
   * to the workspace); default `$XDG_CACHE_HOME/switchyard/worktrees` (`~/.cache/…`).
   */
  dir?: string;
  /** Where `XDG_CACHE_HOME` and `HOME` are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Ignored files or globs copied from the workspace into each new worktree (`isolation.copy`). */
  copy?: readonly string[];
  /** How long an apply waits for another apply of the same repository (default a day). */
  lockTimeoutMs?: number;
  /** Receives each apply's wall time per span (`inspect`, `wait`, `journal`, `commit`,
   * `replay`, `advance`, `check`, `finish`, in ms): the isolation bench prints them. */
  onTiming?: TimingSink;
}

/**
 * Task isolation with git for `workspace`, or undefined when the workspace is not inside
 * a git work tree (then the run uses isolation "none"; see `resolveIsolation` of @switchyard/config).
 */
export async function openGitIsolation(
  workspace: string,
  options: GitIsolationOptions,
): Promise<WorkspaceIsolation | undefined> {
  const repo = await findRepository(workspace);
  if (!repo) return undefined;
  const ctx: IsolationContext = {
    repo,
    layout: layoutOf(repo, options),
    store: options.store,
    ...(options.copy ? { copy: options.copy } : {}),
    ...(options.onTiming ? { onTiming: options.onTiming } : {}),
  };
  const recordOf = async (taskId: TaskId) => {
    const record = await readRecord(ctx, taskId);
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
    markSetUp: async (taskId) => {
      await markSetUp(ctx, taskId);
      const record = await readRecord(ctx, taskId);
      if (record) remember(record);
    },
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
    recover: async () => {
      const recovered = await recoverApplies(ctx, {
        ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
      });
      // Worktrees of an earlier version (nested in the state folder) move out of the repository.
      await relocateAll(ctx);
      return recovered;
    },
    diskUse: async (taskId) => {
      const record = await readRecord(ctx, taskId);
      return record ? diskUsage(record.path) : undefined;
    },
    list: (listOptions) => listWorktrees(ctx, listOptions),
    clean: (cleanOptions) => cleanWorktrees(ctx, cleanOptions),
  };
}
