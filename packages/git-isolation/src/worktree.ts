import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchyardError, type TaskId, type WorktreeRecord } from '@switchyard/core';
import { copyIgnoredFiles } from './copy-ignored.js';
import { git } from './git.js';
import { metadataFingerprint } from './git-metadata.js';
import type { IsolationContext } from './isolation-context.js';
import { branchOf, ensureLayout, worktreePath } from './layout.js';
import { saveMetadataSnapshot } from './metadata-snapshot.js';
import { readRecord, removeRecord, writeRecord } from './records.js';
import { relocateWorktree } from './relocate.js';
import { currentBranch, resolveCommit } from './repository.js';
import { removeEmptyParents } from './tidy.js';

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
 * crash never leaves a worktree nobody knows about. A blocked task's record becomes active
 * again here (the task was retried); one `clean --blocked` removed starts afresh from the tip.
 *
 * Cheap on purpose, since the dispatcher calls it before every stage: a new worktree whose
 * path is free is one `git worktree add` (the stale-leftover checks run only when that
 * fails), and a worktree this process already attached is only looked at on disk.
 */
export async function ensureWorktree(
  ctx: IsolationContext,
  taskId: TaskId,
): Promise<WorktreeRecord> {
  const stored = await readRecord(ctx, taskId);
  // A worktree of an earlier version (nested in the state folder) or an earlier `isolation.dir`.
  const existing = stored && (await relocateWorktree(ctx, stored));
  const current = existing?.state !== 'blocked' && existing?.metadata !== undefined;
  if (existing && current && attachedHere(ctx, existing)) return existing;
  let record = existing ?? (await newRecord(ctx, taskId));
  let created = false;
  if (!existing) {
    await ensureLayout(ctx.layout, ctx.repo);
    // Not fsynced: a fsync here would wait for the disk to take everything written lately
    // (a checkout of thousands of files), and git does not fsync the worktree it adds either.
    // A record lost to a power cut leaves an orphan worktree that the next call of this task
    // (addFresh refused, dropStale) or `switchyard clean` removes.
    await writeRecord(ctx, record, false);
    if (!(await addFresh(ctx, record))) {
      await dropStale(ctx, record);
      await attach(ctx, record);
    }
    created = true;
  } else {
    if (!current) {
      // A retried task works in its worktree again: no longer evidence `clean --blocked` may remove.
      // A record from before metadata fingerprints gets one now (what it compares against later).
      record = {
        ...record,
        state: record.state === 'blocked' ? 'active' : record.state,
        metadata: record.metadata ?? (await fingerprintNow(ctx)),
      };
      await writeRecord(ctx, record);
    }
    created = await attach(ctx, record);
  }
  if (created && existing) {
    // Re-created (deleted by hand, or half-created): its copies and set-up are gone with it.
    const { copied: _copied, copySkipped: _skipped, setUpAt: _setUp, ...rest } = record;
    record = rest;
  }
  // Copied once per worktree (a record written before a crash cut the copy short copies again).
  if (ctx.copy?.length && record.copied === undefined) {
    const report = await copyIgnoredFiles(ctx.repo, record.workdir, ctx.copy);
    record = { ...record, copied: report.copied, copySkipped: report.skipped };
    await writeRecord(ctx, record, false);
  } else if (created && existing) await writeRecord(ctx, record);
  // A workspace folder not committed yet is absent from a fresh checkout: agents still run there.
  await mkdir(record.workdir, { recursive: true, mode: 0o700 });
  rememberAttached(ctx, record);
  return record;
}

// Worktrees attached by this process (per context), by path and branch: a later call only
// checks that the worktree's `.git` link is still on disk. A restart starts empty, so it
// re-attaches through git once; inspect and apply check the branch and link themselves.
const attachedSets = new WeakMap<IsolationContext, Map<string, string>>();

function attachedHere(ctx: IsolationContext, record: WorktreeRecord): boolean {
  return (
    attachedSets.get(ctx)?.get(record.path) === record.branch &&
    existsSync(join(record.path, '.git'))
  );
}

function rememberAttached(ctx: IsolationContext, record: WorktreeRecord): void {
  const set = attachedSets.get(ctx) ?? new Map<string, string>();
  attachedSets.set(ctx, set);
  set.set(record.path, record.branch);
}

function forgetAttached(ctx: IsolationContext, path: string): void {
  attachedSets.get(ctx)?.delete(path);
}

/**
 * The common case of a new worktree: nothing at its path, no branch of its name. One
 * `git worktree add -b` does it; git refuses (and changes nothing) when a leftover branch
 * or a registered worktree is in the way, and then the caller clears those first.
 */
async function addFresh(ctx: IsolationContext, record: WorktreeRecord): Promise<boolean> {
  if (existsSync(record.path)) return false;
  const added = await git(
    ctx.repo.root,
    ['worktree', 'add', '--quiet', '-b', record.branch, record.path, record.baseCommit],
    { allow: [1, 128] },
  );
  return added.exitCode === 0;
}

async function newRecord(ctx: IsolationContext, taskId: TaskId): Promise<WorktreeRecord> {
  const { sourceBranch, baseCommit } = await sourceHead(ctx);
  const branch = branchOf(taskId);
  if (!(await validBranchName(ctx, branch)))
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
    metadata: await fingerprintNow(ctx),
  };
}

/** The repository's metadata fingerprint now, with a copy of it kept to undo changes later. */
async function fingerprintNow(ctx: IsolationContext) {
  const fingerprint = await metadataFingerprint(ctx.repo);
  await saveMetadataSnapshot(ctx.layout.metadataDir, ctx.repo, fingerprint);
  return fingerprint;
}

/** The branch the source checkout is on and its tip, in one `git rev-parse`. */
async function sourceHead(
  ctx: IsolationContext,
): Promise<{ sourceBranch: string; baseCommit: string }> {
  const probe = await git(
    ctx.repo.root,
    ['rev-parse', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD'],
    { allow: [128] },
  );
  const [commit, ref] = probe.stdout.split('\n');
  if (probe.exitCode === 0 && commit && ref?.startsWith('refs/heads/'))
    return { sourceBranch: ref.slice('refs/heads/'.length), baseCommit: commit };
  // A detached HEAD or a branch without a commit: the slow path names which.
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
  return { sourceBranch, baseCommit };
}

// Components git accepts in every case: letters, digits, "-" and "_", joined by single dots
// (no leading, trailing or double dot) and not ending in ".lock". Anything else asks git.
const PLAIN_COMPONENT = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

async function validBranchName(ctx: IsolationContext, branch: string): Promise<boolean> {
  if (branch.split('/').every((c) => PLAIN_COMPONENT.test(c) && !c.endsWith('.lock'))) return true;
  const valid = await git(ctx.repo.root, ['check-ref-format', '--branch', branch], {
    allow: [128],
  });
  return valid.exitCode === 0;
}

/**
 * A branch or worktree of this task id that no record describes is a leftover of an
 * earlier task of the same name (its record was removed): the new task starts fresh.
 */
async function dropStale(ctx: IsolationContext, record: WorktreeRecord): Promise<void> {
  await detach(ctx, record);
  await git(ctx.repo.root, ['branch', '-D', record.branch], { allow: [1] });
}

/**
 * Makes sure the recorded worktree exists on the recorded branch (idempotent); true when it
 * had to be created (again).
 */
async function attach(ctx: IsolationContext, record: WorktreeRecord): Promise<boolean> {
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
    return false;
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
  return true;
}

/** Removes the worktree directory at the record's path (never any other), if there is one. */
async function detach(ctx: IsolationContext, record: Pick<WorktreeRecord, 'path'>): Promise<void> {
  forgetAttached(ctx, record.path);
  // `git worktree remove` names the worktree by its path and refuses any path that is not
  // a registered worktree, so asking first (`worktree list`) is only needed when it fails.
  const removed = existsSync(record.path)
    ? await git(ctx.repo.root, ['worktree', 'remove', '--force', '--force', record.path], {
        allow: [128],
      })
    : undefined;
  if (removed?.exitCode === 0) return;
  const registered = (await registeredWorktrees(ctx)).some((w) => w.path === record.path);
  if (registered)
    await git(ctx.repo.root, ['worktree', 'remove', '--force', '--force', record.path], {
      allow: [128],
    });
  await rm(record.path, { recursive: true, force: true });
  if (registered) await git(ctx.repo.root, ['worktree', 'prune']);
}

/** Removes the task's worktree, branch and record (after verified archive). Idempotent. */
export async function removeWorktree(ctx: IsolationContext, taskId: TaskId): Promise<void> {
  const record = await readRecord(ctx, taskId);
  if (!record) return;
  await detach(ctx, record);
  await git(ctx.repo.root, ['branch', '-D', record.branch], { allow: [1] });
  await removeRecord(ctx, taskId);
  await removeEmptyParents(ctx.layout, record.path);
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

/** The worktree's set-up passed (see {@link WorktreeRecord.setUpAt}). */
export async function markSetUp(ctx: IsolationContext, taskId: TaskId): Promise<void> {
  const record = await readRecord(ctx, taskId);
  if (record) await writeRecord(ctx, { ...record, setUpAt: new Date().toISOString() });
}

/** Keeps a blocked task's worktree as evidence; `clean --blocked` removes it. */
export async function markBlocked(ctx: IsolationContext, taskId: TaskId): Promise<void> {
  const record = await readRecord(ctx, taskId);
  if (record && record.state === 'active') await writeRecord(ctx, { ...record, state: 'blocked' });
}
