import type { TaskState } from '../state/state-schema.js';
import type { TaskId } from '../task/types.js';
import type { FencedWrite } from './fence.js';

/** A stored record with the version it was read at (0: absent). */
export interface Versioned<T> {
  value: T;
  version: number;
}

/** Options of {@link TaskStatePort.put}. */
export interface PutTaskStateOptions extends FencedWrite {
  /** The version the caller read (0 when the task had no state): compare-and-set. */
  expected: number;
}

/**
 * Every task's durable state, the single source of truth for recovery.
 *
 * `put` is a compare-and-set: it writes only when the stored version still equals
 * `expected` and returns the new version (`expected + 1`); otherwise it throws
 * `SY_STORE_CONFLICT` and writes nothing. A fenced put whose token is stale throws
 * `SY_LEASE_LOST`. A put is atomic (a reader sees the old or the new state, never a mix) and
 * survives a crash of the writing process once the promise resolved. The store sets
 * `updatedAt`.
 */
export interface TaskStatePort {
  get(task: TaskId): Promise<Versioned<TaskState> | undefined>;
  /** Every task's state, sorted by task id. Throws `SY_STATE_CORRUPT` naming a damaged record. */
  list(): Promise<Versioned<TaskState>[]>;
  put(state: TaskState, options: PutTaskStateOptions): Promise<number>;
  /** Removes a task's state (compare-and-set like `put`). */
  delete(task: TaskId, options: PutTaskStateOptions): Promise<void>;
  /** Where a human finds the task's record (a workspace-relative path, or a store URL). */
  locate(task: TaskId): string;
}
