import type { BacklogStatus, Lease, TaskId } from '@switchyard/core';

export type { BacklogStatus } from '@switchyard/core';

/** A task as published to the shared backlog. */
export interface BacklogTask {
  task: TaskId;
  /** SHA-256 of the plan content: the same id and hash is the same task. */
  planHash: string;
  /** Tasks that must be archived in the backlog before this one is delivered. */
  dependsOn: TaskId[];
  /** What a machine needs to run the task (its plan files, write set…): JSON, opaque here. */
  payload: unknown;
}

export interface BacklogEntry extends BacklogTask {
  status: BacklogStatus;
  publishedBy: string;
  publishedAt: string;
  /** The holder of the task's lease (the machine working on it, or the last one). */
  holder?: string;
  /** `taken`, but its holder's lease expired (the holder died or froze): the next `take`
   * hands it to another dispatcher. Only `list` says it. */
  leaseExpired?: true;
  /** The archive folder's text files, as the machine that archived it left them. */
  archive?: Record<string, string>;
}

/** A task delivered to one holder, with the lease (and fencing token) it now holds. */
export interface Delivery {
  entry: BacklogEntry;
  lease: Lease;
}
