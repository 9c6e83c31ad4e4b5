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

declare const cursorBrand: unique symbol;

/**
 * Where a reader stands in the task states, as {@link TaskStatePort.changes} last answered
 * it: opaque, valid for the store that made it (pass back the newest one).
 */
export interface TaskStateCursor {
  readonly [cursorBrand]: true;
}

/** The answer of {@link TaskStatePort.changes}. */
export interface TaskStateChanges {
  /** States written (or first seen) since the cursor, sorted by task id. */
  changed: Versioned<TaskState>[];
  /** Tasks whose state was removed since the cursor, sorted. */
  removed: TaskId[];
  /** Pass as `since` on the next call. */
  cursor: TaskStateCursor;
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
  /**
   * What changed since `since` (without it: every state, as `changed`), for a reader that
   * polls (the monitor): its cost follows what changed, not how many tasks there are (a store
   * finds unchanged tasks by a stat or an index, without reading their records). A record that
   * cannot be read now is left out and reported once it reads.
   */
  changes(since?: TaskStateCursor): Promise<TaskStateChanges>;
}
