import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readlink, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TaskId, WorktreeRecord } from '@switchyard/core';
import { git } from './git.js';
import type { IsolationContext } from './isolation-context.js';
import { worktreePath } from './layout.js';
import { readRecord, writeRecord } from './records.js';
import { removeEmptyParents } from './tidy.js';
import { isInside } from './worktrees-location.js';

/**
 * Moves a task's worktree to where the layout puts it now, with everything in it (uncommitted
 * work, ignored files, its branch): worktrees of earlier versions (nested in the state folder,
 * where the project's tools walked into them) or of an earlier `isolation.dir`. The record
 * follows. Crash-safe: every point it can stop at is recognized on the next call.
 *
 * - `git worktree move` renames it (same file system);
 * - else (another file system, a locked worktree, submodules) it is copied, `git worktree
 *   repair` points git at the copy, and the old folder goes: its `.git` link first, so a
 *   half-removed old folder is never taken for the worktree;
 * - a worktree found at the new place while the old one has no `.git` link was moved by a
 *   call that stopped before rewriting the record: repaired and adopted.
 */
export async function relocateWorktree(
  ctx: IsolationContext,
  record: WorktreeRecord,
): Promise<WorktreeRecord> {
  const target = worktreePath(ctx.layout, record.taskId);
  if (record.path === target) return record;
  const from = record.path;
  const oldHere = existsSync(join(from, '.git'));
  if (!oldHere && existsSync(join(target, '.git'))) {
    await git(ctx.repo.root, ['worktree', 'repair', target], { allow: [128] });
    await rm(from, { recursive: true, force: true });
  } else if (oldHere) {
    // Only a copy this function began can be there (the path is this task's own).
    await rm(target, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    const moved = await git(ctx.repo.root, ['worktree', 'move', from, target], {
      allow: [128],
    });
    if (moved.exitCode !== 0) {
      await cp(from, target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      await git(ctx.repo.root, ['worktree', 'repair', target]);
      await unlink(join(from, '.git'));
      await rm(from, { recursive: true, force: true });
    }
  }
  const relocated: WorktreeRecord = {
    ...record,
    path: target,
    workdir: ctx.repo.prefix === '' ? target : join(target, ctx.repo.prefix),
  };
  await writeRecord(ctx, relocated);
  await removeEmptyParents(ctx.layout, from);
  return relocated;
}

/**
 * At the start of a run: every recorded worktree that is not where the layout puts it is
 * moved there, except one a live process works in (a re-attached agent of a crashed run):
 * that one is re-attached where it is and moved before its task's next stage.
 */
export async function relocateAll(ctx: IsolationContext): Promise<TaskId[]> {
  const moved: TaskId[] = [];
  let cwds: string[] | undefined;
  for (const taskId of await ctx.store.isolation.recordTasks()) {
    const record = await readRecord(ctx, taskId);
    if (!record || record.path === worktreePath(ctx.layout, taskId)) continue;
    cwds ??= await processDirs();
    if (cwds.some((cwd) => isInside(record.path, cwd))) continue;
    await relocateWorktree(ctx, record);
    moved.push(taskId);
  }
  return moved;
}

/** The working directories of the processes this user can see (Linux `/proc`; else none). */
async function processDirs(): Promise<string[]> {
  const pids = await readdir('/proc').catch(() => [] as string[]);
  const dirs = await Promise.all(
    pids.filter((p) => /^\d+$/.test(p)).map((p) => readlink(`/proc/${p}/cwd`).catch(() => '')),
  );
  return dirs.filter((d) => d !== '');
}
