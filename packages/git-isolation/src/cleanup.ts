import { readdir, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { CleanOptions, CleanReport, ListOptions, WorktreeListing } from '@switchyard/core';
import { diskUsage } from './disk-usage.js';
import { git, nulList } from './git.js';
import type { IsolationContext } from './isolation-context.js';
import { readRecord } from './records.js';
import { isBlockedNow } from './task-blocked.js';
import { removeEmptyParents } from './tidy.js';
import { registeredWorktrees, removeWorktree } from './worktree.js';

const BRANCH_PREFIX = 'refs/heads/switchyard/';

/**
 * Every task worktree of the workspace with its disk use: those with a record (active,
 * applied, blocked) and orphans — a directory under the worktrees folder, a registered
 * worktree there, or a `switchyard/…` branch that no record describes.
 */
export async function listWorktrees(
  ctx: IsolationContext,
  options: ListOptions = {},
): Promise<WorktreeListing[]> {
  const measure = async (path: string) => {
    const use = options.known?.get(path) ?? (await diskUsage(path));
    return { bytes: use.bytes, sharedBytes: use.sharedBytes };
  };
  const listings: WorktreeListing[] = [];
  const known = new Set<string>();
  const knownBranches = new Set<string>();
  for (const taskId of await ctx.store.isolation.recordTasks()) {
    const record = await readRecord(ctx, taskId);
    if (!record) continue;
    known.add(record.path);
    knownBranches.add(`refs/heads/${record.branch}`);
    listings.push({
      taskId,
      path: record.path,
      branch: record.branch,
      // A blocked record of a task that was retried (not blocked any more) is active again.
      state:
        record.state === 'blocked' && !(await isBlockedNow(ctx.store.tasks, taskId))
          ? 'active'
          : record.state,
      baseCommit: record.baseCommit,
      ...(await measure(record.path)),
    });
  }
  const registered = await registeredWorktrees(ctx);
  const orphanPaths = new Set<string>();
  for (const w of registered)
    if (isUnder(ctx, w.path) && !known.has(w.path)) orphanPaths.add(w.path);
  for (const dir of await taskDirsOnDisk(ctx)) if (!known.has(dir)) orphanPaths.add(dir);
  for (const path of [...orphanPaths].sort()) {
    const branch = registered.find((w) => w.path === path)?.branch;
    if (branch) knownBranches.add(branch);
    listings.push({
      taskId: taskIdOf(ctx, path),
      path,
      branch: branch?.replace(/^refs\/heads\//, ''),
      state: 'orphan',
      baseCommit: undefined,
      ...(await measure(path)),
    });
  }
  const checkedOut = new Set(registered.map((w) => w.branch));
  const branches = nulList(
    await git(ctx.repo.root, ['for-each-ref', '--format=%(refname)%00', BRANCH_PREFIX]),
  )
    .map((b) => b.trim())
    .filter((b) => b !== '');
  for (const ref of branches) {
    if (knownBranches.has(ref) || checkedOut.has(ref)) continue;
    listings.push({
      taskId: ref.slice(BRANCH_PREFIX.length),
      path: '',
      branch: ref.slice('refs/heads/'.length),
      state: 'orphan',
      baseCommit: undefined,
      bytes: 0,
    });
  }
  return listings;
}

/** The folders task worktrees live in: the current one and that of earlier versions. */
const rootsOf = (ctx: IsolationContext) => [ctx.layout.worktreesDir, ctx.layout.legacyWorktreesDir];

/** `<group>/<task>` of a path exactly two levels under a worktrees folder, else undefined. */
function taskIdOf(ctx: IsolationContext, path: string): string | undefined {
  for (const root of rootsOf(ctx)) {
    const rel = relative(root, path);
    const parts = rel.split(sep);
    if (!rel.startsWith('..') && parts.length === 2 && parts.every((p) => p !== '' && p !== '..'))
      return parts.join('/');
  }
  return undefined;
}

const isUnder = (ctx: IsolationContext, path: string): boolean => taskIdOf(ctx, path) !== undefined;

async function taskDirsOnDisk(ctx: IsolationContext): Promise<string[]> {
  const dirs: string[] = [];
  for (const root of rootsOf(ctx))
    for (const group of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!group.isDirectory()) continue;
      for (const task of await readdir(join(root, group.name), { withFileTypes: true }).catch(
        () => [],
      ))
        if (task.isDirectory()) dirs.push(join(root, group.name, task.name));
    }
  return dirs;
}

/**
 * Removes leftover worktrees and their branches: applied ones (archive removes them; a
 * crash may leave them), orphans, and with `blocked` the blocked tasks' evidence. Active
 * tasks' worktrees are never touched, nor anything outside the worktrees folder and the
 * `switchyard/…` branches, nor the repository's objects (no gc, no prune of objects).
 * An orphan branch whose commits are not on the source branch is kept unless `blocked`.
 */
export async function cleanWorktrees(
  ctx: IsolationContext,
  options: CleanOptions = {},
): Promise<CleanReport> {
  const report: CleanReport = { removed: [], kept: [], bytesFreed: 0 };
  for (const listing of await listWorktrees(ctx)) {
    const remove = await isLeftover(ctx, listing, options.blocked === true);
    (remove ? report.removed : report.kept).push(listing);
    if (!remove) continue;
    report.bytesFreed += listing.bytes;
    if (options.dryRun) continue;
    if (listing.state !== 'orphan' && listing.taskId) await removeWorktree(ctx, listing.taskId);
    else await removeOrphan(ctx, listing);
  }
  return report;
}

async function isLeftover(
  ctx: IsolationContext,
  listing: WorktreeListing,
  blocked: boolean,
): Promise<boolean> {
  if (listing.state === 'active') return false;
  if (listing.state === 'applied') return true;
  if (listing.state === 'blocked') return blocked;
  if (listing.path !== '') return true; // an orphan worktree directory under our folder
  if (blocked || !listing.branch) return blocked;
  // An orphan branch: removable when everything on it already is on the source branch.
  const merged = await git(
    ctx.repo.root,
    ['merge-base', '--is-ancestor', `refs/heads/${listing.branch}`, 'HEAD'],
    {
      allow: [1],
    },
  );
  return merged.exitCode === 0;
}

async function removeOrphan(ctx: IsolationContext, listing: WorktreeListing): Promise<void> {
  if (listing.path !== '' && isUnder(ctx, listing.path)) {
    const registered = (await registeredWorktrees(ctx)).some((w) => w.path === listing.path);
    if (registered)
      await git(ctx.repo.root, ['worktree', 'remove', '--force', '--force', listing.path]);
    await rm(listing.path, { recursive: true, force: true });
    if (registered) await git(ctx.repo.root, ['worktree', 'prune']);
    await removeEmptyParents(ctx.layout, listing.path);
  }
  if (listing.branch?.startsWith('switchyard/'))
    await git(ctx.repo.root, ['branch', '-D', listing.branch], { allow: [1] });
}
