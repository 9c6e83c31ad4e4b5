import type { AttemptLocator } from '../attempt/locator.js';
import type { TaskId } from '../task/types.js';
import type { FencedWrite } from './fence.js';

/**
 * Where one attempt's captures are: its id and its capture folder on the machine that ran it.
 * Captures (stream logs, transcripts, heartbeats) stay on that machine's local disk, outside
 * the store; the store keeps the locator that finds and judges them.
 */
export interface AttemptRef {
  attemptId: string;
  captureDir: string;
}

/** Options of {@link AttemptIndexPort.put}. */
export interface PutLocatorOptions extends FencedWrite {
  /** False for writes whose loss to a power cut changes nothing (launch, exit): default true. */
  durable?: boolean;
}

/**
 * The attempt index: one locator per attempt, replaced whole (a reader sees the old or the
 * new locator). A put survives a crash of the writer once it resolved, and a power loss too
 * unless `durable: false`.
 */
export interface AttemptIndexPort {
  put(ref: AttemptRef, locator: AttemptLocator, options?: PutLocatorOptions): Promise<void>;
  /** The attempt's locator, or undefined when it has none. Throws `SY_STATE_CORRUPT`. */
  get(ref: AttemptRef): Promise<AttemptLocator | undefined>;
  /** Every locator of a task (or of all tasks), sorted by start time. */
  list(task?: TaskId): Promise<{ ref: AttemptRef; locator: AttemptLocator }[]>;
}
