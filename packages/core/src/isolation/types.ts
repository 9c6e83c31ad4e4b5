import type { TaskId } from '../task/types.js';
import type { WorktreeRecord } from './schema.js';

/** What a task changed in its worktree, checked against its write set. Paths are workspace-relative. */
export interface WriteSetReport {
  /** Every changed, added or deleted file (commits made in the worktree included). */
  changed: string[];
  /** Changed files the write set does not list. */
  outside: string[];
  /** Changes to git metadata (a `.git` path, a nested repository, a moved HEAD): never applied. */
  gitMetadata: string[];
  /** Of `gitMetadata`, the repository's config, hook and `info/` changes already put back as
   * they were when the worktree was created. */
  gitMetadataRestored?: string[];
  /** Commits the agent made on the task branch (`<short id> <subject>`): the apply squashes
   * them into the task's one commit; `isolation.agentCommits: "refuse"` refuses them. */
  agentCommits?: string[];
  /** Changed files that are symbolic links out of the repository (or into `.git`), or hard
   * links (their content is shared with another file, maybe outside): never applied. */
  escapingLinks?: string[];
  /** Write-set files git ignores (and does not track): their changes could never be applied. */
  ignored?: string[];
  /** True when nothing changed. */
  empty: boolean;
}

/** The definition of done run on the source after the task's commit landed there. */
export type SourceCheck = (cwd: string) => Promise<{ ok: boolean; detail?: string }>;

/** What the dispatcher passes to apply a reviewed task. */
export interface ApplyRequest {
  taskId: TaskId;
  /** Commit subject: the plan's title. */
  title: string;
  /** Targets that worked on the task (`Switchyard-Targets` trailer). */
  targets: readonly string[];
  /** Attempts spent (`Switchyard-Attempts` trailer). */
  attempts: number;
  /** The declared write set (workspace-relative); changes outside it refuse the apply. */
  writeSet: readonly string[];
  /** The DoD on the source; omitted when the plan has none. */
  check?: SourceCheck;
  /** The run was asked to stop (a first SIGINT/SIGTERM): an apply that has not started yet
   * (queued behind another, or waiting for the repository's apply lock) ends `interrupted`
   * with nothing touched; one under way is finished. */
  stop?: AbortSignal;
  /** Abort the apply under way (a second SIGINT): it stops at its next step and is rolled back
   * through its journal, so the source is left as it was before it. */
  abort?: AbortSignal;
  /** Shared backlog: resolves while the task is still this dispatcher's, throws
   * `SY_LEASE_LOST` otherwise; an isolation that lands on a shared remote calls it right
   * before the push (the one effect the store cannot fence). */
  confirm?: () => Promise<void>;
}

/** How an apply ended. The source branch and tree are never left half-applied. */
export type ApplyResult =
  | {
      status: 'applied';
      taskId: TaskId;
      baseCommit: string;
      /** Source tip before, and the task's commit on top of it (the new tip). */
      sourceTip: string;
      sourceCommit: string;
      files: string[];
    }
  | {
      status: 'conflict';
      taskId: TaskId;
      /** Workspace-relative files the source changed too. */
      files: string[];
      sourceTip: string;
      /** The task's changes as a commit on its old base (kept for the worker's prompt). */
      taskCommit: string;
      message: string;
    }
  | { status: 'waiting'; taskId: TaskId; files: string[]; message: string }
  | {
      status: 'dod-failed';
      taskId: TaskId;
      baseCommit: string;
      sourceTip: string;
      /** The commit that was rolled back. */
      sourceCommit: string;
      rolledBack: true;
      detail: string;
      /** The task's files the user changed while the check ran: left as they were (their
       * uncommitted changes then hold the rolled-back change too). */
      kept?: string[];
    }
  | { status: 'refused'; taskId: TaskId; report: WriteSetReport; message: string }
  | {
      /** Stopped (`stop`) before it started, or aborted (`abort`) and rolled back: the task
       * is still approved and applies on the next run. */
      status: 'interrupted';
      taskId: TaskId;
      message: string;
      /** The commit that was undone when the apply was aborted after moving the source. */
      rolledBack?: string;
    };

/** What recovery did with one interrupted apply. */
export interface RecoveredApply {
  taskId: TaskId;
  /** The step the apply had recorded when it stopped. */
  step: string;
  /** completed: it had been verified; rolled-back: the source is back at its tip; discarded: it had not touched the source. */
  outcome: 'completed' | 'rolled-back' | 'discarded';
  sourceCommit?: string;
}

/** A worktree found on disk or in the records, with the disk it uses. */
export interface WorktreeListing {
  taskId: TaskId | undefined;
  path: string;
  branch: string | undefined;
  /** From the record; `orphan` when git or the disk has it but no record does. */
  state: WorktreeRecord['state'] | 'orphan';
  baseCommit: string | undefined;
  /** Disk it takes of its own (allocated blocks): what removing it frees. */
  bytes: number;
  /** Disk of files hard-linked with files elsewhere (a package store such as pnpm's). */
  sharedBytes?: number;
}

/** Disk a worktree takes (see {@link WorktreeListing.bytes}). */
export interface DiskUse {
  bytes: number;
  sharedBytes: number;
}

/** Options of {@link WorkspaceIsolation.list}. */
export interface ListOptions {
  /** Disk use measured already, by worktree path: those are not walked again (status). */
  known?: ReadonlyMap<string, DiskUse>;
}

/** Options of {@link WorkspaceIsolation.clean}. */
export interface CleanOptions {
  /** Remove blocked tasks' worktrees too (kept as evidence otherwise). */
  blocked?: boolean;
  /** List what would be removed; remove nothing. */
  dryRun?: boolean;
}

/** What clean removed (or would remove). */
export interface CleanReport {
  removed: WorktreeListing[];
  kept: WorktreeListing[];
  bytesFreed: number;
}

/**
 * Per-task isolation as the dispatcher uses it. Implemented with git by
 * `@switchyard/git-isolation`; core only calls it.
 *
 * Lifecycle: `ensureWorktree` at admission (idempotent: re-attaches after a restart);
 * `inspect` after worker/self-check (→ correction for outside files or an empty diff, with
 * `revertOutside` first under `writeSet: "revert-outside"`); `apply` after review APPROVED;
 * `recreateWorktree` after a conflict; `removeWorktree` after verified archive;
 * `markBlocked` when the task blocks; `recover` once at dispatcher start, before admission.
 */
export interface WorkspaceIsolation {
  /** The task's worktree, created (with `isolation.copy`'s files) or re-attached; moved first
   * when it is not where the layout puts it (a worktree of an earlier version). */
  ensureWorktree(taskId: TaskId): Promise<WorktreeRecord>;
  /** The worktree's set-up (`isolation.setup`) passed: `setUpAt` of its record is set until the
   * worktree is created anew. */
  markSetUp(taskId: TaskId): Promise<void>;
  worktreeOf(taskId: TaskId): WorktreeRecord | undefined;
  inspect(taskId: TaskId, writeSet: readonly string[]): Promise<WriteSetReport>;
  revertOutside(taskId: TaskId, writeSet: readonly string[]): Promise<string[]>;
  apply(request: ApplyRequest): Promise<ApplyResult>;
  recreateWorktree(taskId: TaskId): Promise<WorktreeRecord>;
  /** PLAN `apply: patch`: the task's changes against its base as a binary git patch
   * (repository-relative paths, `git apply` from the repository root); the source is untouched. */
  patch(taskId: TaskId): Promise<string>;
  removeWorktree(taskId: TaskId): Promise<void>;
  markBlocked(taskId: TaskId): Promise<void>;
  recover(): Promise<RecoveredApply[]>;
  /** The disk the task's worktree takes now (a walk of it); undefined without a worktree. */
  diskUse(taskId: TaskId): Promise<DiskUse | undefined>;
  list(options?: ListOptions): Promise<WorktreeListing[]>;
  clean(options?: CleanOptions): Promise<CleanReport>;
  /**
   * Landing on a shared remote branch only: the task's commit (its `Switchyard-Task` trailer)
   * found on the remote branch after a fetch, with the branch it is on; undefined when none
   * is there. A task taken over from a machine that pushed it and died is recorded from it.
   */
  landedOnRemote?(taskId: TaskId): Promise<LandedCommit | undefined>;
}

/** A task's commit already on the source branch (see {@link WorkspaceIsolation.landedOnRemote}). */
export interface LandedCommit {
  commit: string;
  parent: string;
  sourceBranch: string;
}
