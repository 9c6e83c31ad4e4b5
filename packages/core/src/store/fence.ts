import type { TaskId } from '../task/types.js';

/**
 * A holder's proof that it owns a task: the task's lease token when the holder took it. A
 * store refuses (`SY_LEASE_LOST`) every write carrying a fence whose token is no longer the
 * task's current lease token, so a dispatcher that lost a task (its lease expired and another
 * holder took it) can never write for it again, however late it wakes up. Writes without a
 * fence are unfenced: only tools that own the whole store (a single-machine CLI command under
 * the workspace lock, a test) may make them.
 */
export interface Fence {
  task: TaskId;
  token: number;
}

/** Options every fenced write of a task's records takes. */
export interface FencedWrite {
  fence?: Fence;
}
