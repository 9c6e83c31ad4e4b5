import type { TaskId } from '../task/types.js';
import type { Fence } from './fence.js';
import type { Lease } from './lease-port.js';

/** Where a task of a shared backlog stands. */
export type BacklogStatus = 'waiting' | 'ready' | 'taken' | 'archived' | 'blocked';

/** A task of the shared backlog as a dispatcher sees it. */
export interface BacklogView {
  task: TaskId;
  status: BacklogStatus;
  /** The lease holder working on it (`taken`), or the last one (`archived`, `blocked`). */
  holder?: string;
  /** `taken`, but its holder's lease expired (that dispatcher died or froze): the next
   * dispatcher with room takes it over. */
  leaseExpired?: true;
  /** Tasks of the backlog that must be archived before this one is delivered. */
  dependsOn?: TaskId[];
  /** Files of the task's archive folder (relative path → text), once a machine archived it. */
  archive?: Record<string, string>;
}

/**
 * The backlog several dispatchers drain together (a database store offers it; the file store
 * has none: one machine needs no shared backlog). Tasks are published to it by the CLI; a
 * dispatcher `take`s the next deliverable task (its predecessors archived) together with the
 * task's lease, works on it with that lease's fence, and `finish`es it. A holder that died is
 * found by its expired lease, and `take` hands its task to another dispatcher with a greater
 * token. `watch` wakes a dispatcher when any machine changed the backlog.
 */
export interface SharedBacklogPort {
  take(holder: string, ttlMs: number): Promise<{ task: TaskId; lease: Lease } | undefined>;
  /** Fenced: only the task's current holder may finish it. `archive` is kept for the other
   * machines to materialize. Archiving releases the tasks that waited on this one. */
  finish(
    task: TaskId,
    status: 'archived' | 'blocked',
    fence: Fence,
    archive?: Record<string, string>,
  ): Promise<void>;
  /** Gives a taken task back to the backlog (delivered again after `afterSeconds`); fenced. */
  requeue(task: TaskId, fence: Fence, afterSeconds?: number): Promise<void>;
  /** Every task of the backlog. */
  list(): Promise<BacklogView[]>;
  /** Calls `onChange` when any machine changes the backlog. */
  watch(onChange: () => void): Promise<{ stop(): Promise<void> }>;
}
