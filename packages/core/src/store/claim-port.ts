import type { TaskId } from '../task/types.js';
import type { FencedWrite } from './fence.js';

/** A task's held claim. */
export interface ClaimRecord {
  taskId: TaskId;
  /** Canonical write-set paths, sorted. */
  paths: string[];
  /** When the task first took a claim (ISO 8601). */
  since: string;
}

/** A path another task holds. */
export interface ClaimConflict {
  path: string;
  holder: TaskId;
}

/** Result of {@link ClaimPort.tryClaim}: all paths taken, or none and every conflict. */
export type ClaimResult = { ok: true; paths: string[] } | { ok: false; conflicts: ClaimConflict[] };

/**
 * Write-set claims, shared by every holder of the store. `tryClaim` takes every path or none,
 * atomically across processes and machines: of two tasks racing for one path exactly one gets
 * it. Paths a task holds already are kept (a retry or follow-up plan may add paths). Claims
 * survive retries, crashes and power loss once the promise resolved; they are released only
 * after the task's verified archive.
 */
export interface ClaimPort {
  tryClaim(taskId: TaskId, paths: readonly string[], options?: FencedWrite): Promise<ClaimResult>;
  /** Releases every path of `taskId`. Returns the paths released. */
  release(taskId: TaskId, options?: FencedWrite): Promise<string[]>;
  /** The task holding `path`, if any. */
  holderOf(path: string): Promise<TaskId | undefined>;
  /** Every held claim, sorted by task id. */
  list(): Promise<ClaimRecord[]>;
  /** The path -> holder index, for admission. */
  snapshot(): Promise<ReadonlyMap<string, TaskId>>;
}
