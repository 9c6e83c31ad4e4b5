import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchyardError, type TaskId, type WorktreeRecord } from '@switchyard/core';
import { git } from './git.js';
import { branchOf, ensureLayout, type IsolationLayout, worktreePath } from './layout.js';
import { readRecord, removeRecord, writeRecord } from './records.js';
import { currentBranch, type Repository, resolveCommit } from './repository.js';

/** What every isolation operation works on. */
export interface IsolationContext {
  repo: Repository;
  layout: IsolationLayout;
}

/** A worktree git has registered: its path and branch (`refs/heads/…`), if any. */
export interface RegisteredWorktree {
  path: string;
  branch: string | undefined;
}

/** `git worktree list --porcelain`, parsed. */
export async function registeredWorktrees(ctx: IsolationContext): Promise<RegisteredWorktree[]> {
  const out = await git(ctx.repo.root, ['worktree', 'list', '--porcelain', '-z']);
  const list: RegisteredWorktree[] = [];
  let current: RegisteredWorktree | undefined;
  for (const field of out.stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), branch: undefined };
      list.push(current);
    } else if (field.startsWith('branch ') && current)
      current.branch = field.slice('branch '.length);
  }
  return list;
}

/**
 * The task's worktree: created on first call from the source branch's current tip on branch
 * `switchyard/<group>/<task>`, re-attached on every later call (also after a restart or a
 * crash half-way through creating it). The record is written before git is asked, so a
 * crash never leaves a worktree nobody knows about.
 */
export async function ensureWorktree(
  ctx: IsolationContext,
  taskId: TaskId,
): Promise<WorktreeRecord> {
  const existing = await readRecord(ctx.layout, taskId);
  const record = existing ?? (await newRecord(ctx, taskId));
  if (!existing) {
    await ensureLayout(ctx.layout);
    await dropStale(ctx, record);
    await writeRecord(ctx.layout, record);
  }
  await attach(ctx, record);
  // A workspace folder not committed yet is absent from a fresh checkout: agents still run there.
  await mkdir(record.workdir, { recursive: true });
  return record;
}

async function newRecord(ctx: IsolationContext, taskId: TaskId): Promise<WorktreeRecord> {
  const sourceBranch = await currentBranch(ctx.repo);
  if (!sourceBranch)
    throw new SwitchyardError(
      'SY_GIT',
      `the workspace ${ctx.repo.root} has a detached HEAD: tasks are applied onto a branch`,
      {
        file: ctx.repo.root,
        hint: 'check out the branch tasks should land on (git switch <branch>), or set isolation: "none"',
      },
    );
  const baseCommit = await resolveCommit(ctx.repo.root, `refs/heads/${sourceBranch}`);
  if (!baseCommit)
    throw new SwitchyardError('SY_GIT', `branch ${sourceBranch} has no commit yet`, {
      file: ctx.repo.root,
      hint: 'make a first commit (git commit --allow-empty -m init), or set isolation: "none"',
    });
  const branch = branchOf(taskId);
  const valid = await git(ctx.repo.root, ['check-ref-format', '--branch', branch], {
    allow: [128],
  });
  if (valid.exitCode !== 0)
    throw new SwitchyardError('SY_GIT', `task ${taskId} gives no valid branch name (${branch})`, {
      hint: 'rename the group or task folder to letters, digits, "-", "_" and "."',
    });
  const path = worktreePath(ctx.layout, taskId);
  return {
    schema: 1,
    taskId,
    branch,
    path,
    workdir: ctx.repo.prefix === '' ? path : join(path, ctx.repo.prefix),
    sourceBranch,
    baseCommit,
    state: 'active',
    createdAt: new Date().toISOString(),
  };
}

/**
 * A branch or worktree of this task id that no record describes is a leftover of an
 * earlier task of the same name (its record was removed): the new task starts fresh.
 */
async function dropStale(ctx: IsolationContext, record: WorktreeRecord): Promise<void> {
  await detach(ctx, record);
  await git(ctx.repo.root, ['branch', '-D', record.branch], { allow: [1] });
}

/** Makes sure the recorded worktree exists on the recorded branch (idempotent). */
async function attach(ctx: IsolationContext, record: WorktreeRecord): Promise<void> {
  const registered = (await registeredWorktrees(ctx)).find((w) => w.path === record.path);
  if (registered && existsSync(join(record.path, '.git'))) {
    if (registered.branch !== `refs/heads/${record.branch}`)
      throw new SwitchyardError(
        'SY_GIT',
        `worktree ${record.path} is on ${registered.branch ?? 'a detached HEAD'}, not ${record.branch}`,
        {
          file: record.path,
          hint: `git -C ${record.path} switch ${record.branch}, or run \`switchyard clean\` and start the task again`,
        },
      );
    return;
  }
  // Half-created (crash inside `git worktree add`) or deleted by hand: start it again.
  if (registered) {
    await git(ctx.repo.root, ['worktree', 'remove', '--force', record.path], { allow: [128] });
    await git(ctx.repo.root, ['worktree', 'prune']);
  }
  await rm(record.path, { recursive: true, force: true });
  const branchExists =
    (await resolveCommit(ctx.repo.root, `refs/heads/${record.branch}`)) !== undefined;
  await git(
    ctx.repo.root,
    branchExists
      ? ['worktree', 'add', '--quiet', record.path, record.branch]
      : ['worktree', 'add', '--quiet', '-b', record.branch, record.path, record.baseCommit],
  );
}

/** Removes the worktree directory at the record's path (never any other), if there is one. */
async function detach(ctx: IsolationContext, record: Pick<WorktreeRecord, 'path'>): Promise<void> {
  const registered = (await registeredWorktrees(ctx)).some((w) => w.path === record.path);
  if (registered)
    await git(ctx.repo.root, ['worktree', 'remove', '--force', '--force', record.path]);
  await rm(record.path, { recursive: true, force: true });
  if (registered) await git(ctx.repo.root, ['worktree', 'prune']);
}

/** Removes the task's worktree, branch and record (after verified archive). Idempotent. */
export async function removeWorktree(ctx: IsolationContext, taskId: TaskId): Promise<void> {
  const record = await readRecord(ctx.layout, taskId);
  if (!record) return;
  await detach(ctx, record);
  await git(ctx.repo.root, ['branch', '-D', record.branch], { allow: [1] });
  await removeRecord(ctx.layout, taskId);
}

/**
 * A fresh worktree from the source branch's current tip (after a conflict: the worker
 * redoes the task on top of what landed meanwhile). The old worktree and branch go.
 */
export async function recreateWorktree(
  ctx: IsolationContext,
  taskId: TaskId,
): Promise<WorktreeRecord> {
  await removeWorktree(ctx, taskId);
  return ensureWorktree(ctx, taskId);
}

/** Keeps a blocked task's worktree as evidence; `clean --blocked` removes it. */
export async function markBlocked(ctx: IsolationContext, taskId: TaskId): Promise<void> {
  const record = await readRecord(ctx.layout, taskId);
  if (record && record.state === 'active')
    await writeRecord(ctx.layout, { ...record, state: 'blocked' });
}
