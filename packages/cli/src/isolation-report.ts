import {
  type IsolationConfig,
  type IsolationMode,
  isolationSettings,
  resolveIsolation,
} from '@switchyard/config';
import type { DiskUse, TaskState, WorkspaceIsolation } from '@switchyard/core';
import { openFsReader } from '@switchyard/store-fs/read';
import { formatBytes } from '@switchyard/utils';
import pc from 'picocolors';
import { openConfiguredIsolation } from './run-isolation.js';

/** One task worktree as `status` and the dry run show it. */
export interface WorktreeRow {
  task: string | undefined;
  state: string;
  branch: string | undefined;
  base: string | undefined;
  path: string;
  /** Disk of its own (what removing it frees). */
  bytes: number;
  /** Disk hard-linked from a package store (pnpm's): shared, not freed by removing it. */
  sharedBytes: number;
}

/** The isolation section of `status --json` and `run --dry-run --json`. */
export interface IsolationReport {
  mode: IsolationMode;
  warning?: string;
  worktrees: WorktreeRow[];
  /** Tasks reviewed and waiting to land on the source branch, with why they wait (if they do). */
  applyQueue: { task: string; waiting?: string }[];
  /** Disk used by every task worktree (their own), and hard-linked from package stores. */
  bytes: number;
  sharedBytes: number;
  /** Config `isolation.maxDiskBytes`: no task starts a new worktree while `bytes` reach it. */
  maxDiskBytes?: number;
  /** Under worktree isolation: unfinished tasks that started in the shared workspace and finish there. */
  sharedWorkspace?: string[];
}

/**
 * Reads the isolation facts of a workspace without changing anything: the configured mode
 * resolved against git, every task worktree (records, git and the disk, with the bytes it
 * uses) and the apply queue from the tasks' persisted state.
 */
export async function gatherIsolation(
  workspace: string,
  config: IsolationConfig | undefined,
  states?: readonly TaskState[],
): Promise<IsolationReport> {
  const settings = isolationSettings(config);
  const configured = settings.mode;
  // Opened for reading: the report changes nothing (a write through it would be refused).
  const store = openFsReader({ workspace });
  let known = states;
  if (!known) {
    try {
      known = (await store.tasks.list()).map((entry) => entry.value);
    } catch {
      known = [];
    }
  }
  let listed: Awaited<ReturnType<WorkspaceIsolation['list']>> = [];
  let inGit = configured === 'none';
  let unreadable: string | undefined;
  try {
    const isolation =
      configured === 'none' ? undefined : await openConfiguredIsolation(workspace, config, store);
    inGit ||= isolation !== undefined;
    // The run measures its worktrees into the task states: those are not walked again here.
    if (isolation) listed = await isolation.list({ known: measuredDisk(known) });
  } catch (error) {
    // A report never fails on a broken repository: it says so (the run refuses it itself).
    unreadable = `the git repository cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
  const resolved = resolveIsolation(configured, inGit);
  if (unreadable) resolved.warning = unreadable;
  const worktrees = listed.map((w) => ({
    task: w.taskId,
    state: w.state,
    branch: w.branch,
    base: w.baseCommit,
    path: w.path,
    bytes: w.bytes,
    sharedBytes: w.sharedBytes ?? 0,
  }));
  return {
    mode: resolved.mode,
    ...(resolved.warning ? { warning: resolved.warning } : {}),
    worktrees,
    applyQueue: known
      .filter((s) => s.phase === 'apply' && !s.blocked)
      .map((s) => ({
        task: s.task,
        ...(s.isolation?.waiting ? { waiting: s.isolation.waiting } : {}),
      })),
    bytes: worktrees.reduce((sum, w) => sum + w.bytes, 0),
    sharedBytes: worktrees.reduce((sum, w) => sum + w.sharedBytes, 0),
    ...(settings.maxDiskBytes ? { maxDiskBytes: settings.maxDiskBytes } : {}),
    ...sharedWorkspaceOf(resolved.mode, known),
  };
}

/** Disk figures the run measured into the task states, by worktree path. */
function measuredDisk(states: readonly TaskState[]): Map<string, DiskUse> {
  const known = new Map<string, DiskUse>();
  for (const s of states)
    if (s.phase !== 'done' && s.isolation?.disk) known.set(s.isolation.path, s.isolation.disk);
  return known;
}

/** Tasks that keep the shared workspace they started in while the run has worktrees. */
function sharedWorkspaceOf(
  mode: IsolationMode,
  states: readonly TaskState[],
): { sharedWorkspace?: string[] } {
  if (mode !== 'worktree') return {};
  const shared = states
    .filter((s) => s.isolationMode === 'none' && s.phase !== 'done')
    .map((s) => s.task);
  return shared.length > 0 ? { sharedWorkspace: shared } : {};
}

/** `1.2 GiB`, `+ 300.0 MiB shared` when some of it is hard-linked from a package store. */
const size = (bytes: number, shared = 0): string =>
  `${formatBytes(bytes)}${shared > 0 ? ` (+ ${formatBytes(shared)} shared)` : ''}`;

/** The human lines of the isolation section. */
export function renderIsolation(report: IsolationReport): string {
  const out = [
    `isolation  ${report.mode === 'worktree' ? 'a git worktree per task' : 'none (tasks share the workspace)'}${report.worktrees.length > 0 ? ` · ${report.worktrees.length} worktree(s), ${size(report.bytes, report.sharedBytes)}` : ''}${report.maxDiskBytes ? ` of the ${formatBytes(report.maxDiskBytes)} cap (isolation.maxDiskBytes)` : ''}`,
  ];
  if (report.warning) out.push(`  ${pc.yellow('warning')} ${report.warning}`);
  for (const w of report.worktrees)
    out.push(
      `  ${(w.task ?? '?').padEnd(20)} ${w.state.padEnd(8)} ${w.branch ?? '-'} base ${w.base?.slice(0, 12) ?? '-'} ${size(w.bytes, w.sharedBytes)} ${pc.dim(w.path)}`,
    );
  if (report.sharedWorkspace)
    out.push(
      `  shared workspace: ${report.sharedWorkspace.join(', ')} (started without a worktree; finish in the source tree)`,
    );
  if (report.applyQueue.length > 0)
    out.push(
      `  apply queue: ${report.applyQueue.map((a) => `${a.task}${a.waiting ? ` (${a.waiting})` : ''}`).join(', ')}`,
    );
  return `${out.join('\n')}\n`;
}
