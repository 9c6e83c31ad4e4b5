import { AGENT_TASK_DIR, type WriteSetReport } from '@switchyard/core';
import type { Snapshot } from '@switchyard/store-fs';
import { sharedPass } from '@switchyard/utils';
import {
  changedPaths,
  type FolderListings,
  folderListings,
  gitignoreOf,
  takeSnapshot,
} from '../../snapshot/workspace-snapshot.js';
import { recordChangeBaseline } from '../checks/task-change.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { changeStoreOf } from './change-store-of.js';

// The latest snapshot of each run's workspace and its folders' listings: a new one reads only
// the files changed since, and lists only the folders whose entries changed.
const latest = new WeakMap<DispatchContext, Snapshot>();
const listingsOf = new WeakMap<DispatchContext, FolderListings>();

/**
 * A task in the shared workspace outside git (isolation `none`, no git to diff) before an agent that
 * writes (worker, fixup): its write-set baseline is recorded, and — unless a round of this run
 * that has not been checked yet is open (an earlier attempt failed: its writes are checked
 * too) — a snapshot
 * of the workspace (size, mtime, inode; content hashes read only where those changed; folders
 * such as node_modules and .git, agent-task/ and what the root .gitignore ignores skipped).
 */
export async function openSharedRound(
  ctx: DispatchContext,
  rt: TaskRuntime,
  before: string,
): Promise<void> {
  if (rt.state.isolation || rt.task.runner === 'local') return;
  const store = changeStoreOf(ctx);
  // A round of this run stays open; one an earlier run left (the task blocked or was stopped,
  // and a person may have changed the workspace since) starts over. Judged by the run's id,
  // not by time: the wall clock may have stepped between the runs.
  const open = store.readRound(rt.id);
  const ours = open?.run !== undefined && open.run === ctx.bus.runId;
  // In a git repository the source guard (./source-watch.ts) checks the checkout already; a
  // round an earlier run left (before `git init`) must not judge this run's writes.
  if (ctx.options.sourceGuard) {
    if (open && !ours) await store.removeRound(rt.id);
    return;
  }
  await recordChangeBaseline(ctx, rt);
  if (ours) return;
  const files = await snapshotOf(ctx);
  await store.writeRound({
    schema_version: 1,
    task: rt.id,
    before,
    at: ctx.now().toISOString(),
    run: ctx.bus.runId,
    files,
  });
}

/**
 * The write-set report of a shared-workspace task's open round, as worktree isolation gives
 * one: the files changed since the round's snapshot, and those of them the write set does not
 * list (files of other tasks' write sets and claims left out: those tasks may write them
 * meanwhile). Never `empty`: without a diff of its own, a task that changed nothing this round
 * may still have changed its files in an earlier one. The round is closed: the next writing
 * attempt opens a new one. Undefined when no round is open.
 */
export async function inspectSharedRound(
  ctx: DispatchContext,
  rt: TaskRuntime,
): Promise<WriteSetReport | undefined> {
  const store = changeStoreOf(ctx);
  const round = store.readRound(rt.id);
  if (!round) return undefined;
  const after = await snapshotOf(ctx, round.files);
  const own = new Set(rt.task.writeSet.map((e) => e.path));
  const all = changedPaths(round.files, after);
  const others = heldByOthers(
    ctx,
    rt,
    all.filter((p) => !own.has(p)),
  );
  const changed = all.filter((p) => own.has(p) || !others.has(p));
  await store.removeRound(rt.id);
  return {
    changed,
    outside: changed.filter((p) => !own.has(p)),
    gitMetadata: [],
    empty: false,
  };
}

/**
 * Which of `paths` (changed outside the task's write set) another task lists in its write set
 * (a claim key: the path or its resolved target) or holds a claim on. Looks only for these
 * few paths, in an index of every task's claim keys kept while no task's plans changed.
 */
function heldByOthers(
  ctx: DispatchContext,
  rt: TaskRuntime,
  paths: readonly string[],
): Set<string> {
  const held = new Set<string>();
  if (paths.length === 0) return held;
  const listedBy = writeSetIndexOf(ctx);
  for (const path of paths) {
    const tasks = listedBy.get(path);
    if (tasks && (tasks.size > 1 || !tasks.has(rt.id))) held.add(path);
    const holder = ctx.claimIndex.get(path);
    if (holder !== undefined && holder !== rt.id) held.add(path);
  }
  return held;
}

/** The tasks listing each claim key, and the plans (task, write set) it was built from. */
interface WriteSetIndex {
  from: { rt: TaskRuntime; task: unknown; writeSet: unknown }[];
  listedBy: Map<string, Set<string>>;
}

const writeSetIndexes = new WeakMap<DispatchContext, WriteSetIndex>();

/**
 * Claim key -> the tasks whose write sets list it, built again only when the run's tasks or
 * one's plans changed (a new task object or write-set list, as the admission views are kept):
 * every writing attempt of a large backlog looks its few paths up without walking every task.
 */
function writeSetIndexOf(ctx: DispatchContext): Map<string, Set<string>> {
  const kept = writeSetIndexes.get(ctx);
  if (kept && builtFromPlansOf(ctx, kept)) return kept.listedBy;
  const index: WriteSetIndex = { from: [], listedBy: new Map() };
  for (const rt of ctx.tasks.values()) {
    index.from.push({ rt, task: rt.task, writeSet: rt.task.writeSet });
    for (const entry of rt.task.writeSet) {
      for (const key of entry.resolved === undefined
        ? [entry.path]
        : [entry.path, entry.resolved]) {
        const tasks = index.listedBy.get(key);
        if (tasks) tasks.add(rt.id);
        else index.listedBy.set(key, new Set([rt.id]));
      }
    }
  }
  writeSetIndexes.set(ctx, index);
  return index.listedBy;
}

function builtFromPlansOf(ctx: DispatchContext, index: WriteSetIndex): boolean {
  if (index.from.length !== ctx.tasks.size) return false;
  let i = 0;
  for (const rt of ctx.tasks.values()) {
    const from = index.from[i++]!;
    if (from.rt !== rt || from.task !== rt.task || from.writeSet !== rt.task.writeSet) return false;
  }
  return true;
}

/**
 * A snapshot of the workspace taken after this call: one walk at a time per run, and the
 * calls made while one is under way or in the few turns of the event loop after it share
 * the next. A walk that starts after a call sees every change made before it, which is all
 * the snapshot before or after an agent needs, so attempts that open or close rounds near
 * each other walk the workspace once.
 */
function snapshotOf(ctx: DispatchContext, previous?: Snapshot): Promise<Snapshot> {
  let walk = walkOf.get(ctx);
  if (!walk) {
    walk = sharedPass(
      (previous: readonly (Snapshot | undefined)[]) => walkWorkspace(ctx, previous),
      { gapTurns: 16 },
    );
    walkOf.set(ctx, walk);
  }
  return walk(previous);
}

const walkOf = new WeakMap<
  DispatchContext,
  (previous: Snapshot | undefined) => Promise<Snapshot>
>();

async function walkWorkspace(
  ctx: DispatchContext,
  previous: readonly (Snapshot | undefined)[],
): Promise<Snapshot> {
  const ignored = await gitignoreOf(ctx.workspace);
  const skip = (path: string) => path === `${AGENT_TASK_DIR}/` || ignored(path);
  const listings = listingsOf.get(ctx) ?? folderListings();
  listingsOf.set(ctx, listings);
  const snapshot = await takeSnapshot(ctx.workspace, {
    previous: [...previous, latest.get(ctx)],
    skip,
    listings,
  });
  latest.set(ctx, snapshot);
  return snapshot;
}
