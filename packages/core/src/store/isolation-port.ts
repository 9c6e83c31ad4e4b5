import type { ApplyJournal, WorktreeRecord } from '../isolation/schema.js';
import type { TaskId } from '../task/types.js';
import type { FencedWrite } from './fence.js';

/** Options of isolation writes. */
export interface IsolationWrite extends FencedWrite {
  /** False for a write whose loss to a power cut changes nothing recovery does: default true. */
  durable?: boolean;
}

/**
 * Worktree records (one per task worktree, written before the worktree is created) and apply
 * journals (one per apply in progress; each step recorded before it is taken). Every write
 * replaces the record whole and survives a crash of the writer once it resolved (and a power
 * loss unless `durable: false`).
 */
export interface IsolationPort {
  getRecord(task: TaskId): Promise<WorktreeRecord | undefined>;
  putRecord(record: WorktreeRecord, options?: IsolationWrite): Promise<void>;
  removeRecord(task: TaskId, options?: FencedWrite): Promise<void>;
  /** Task ids with a worktree record, sorted. */
  recordTasks(): Promise<TaskId[]>;
  getJournal(task: TaskId): Promise<ApplyJournal | undefined>;
  putJournal(journal: ApplyJournal, options?: IsolationWrite): Promise<void>;
  removeJournal(task: TaskId, options?: FencedWrite): Promise<void>;
  /** Task ids with an apply journal, sorted. */
  journalTasks(): Promise<TaskId[]>;
}
