import type { FencedWrite } from './fence.js';

/**
 * A catalog target's shared state: a provider fault seen by one task (one machine) cools the
 * target down, or parks it, for every task of the store.
 */
export interface TargetState {
  target: string;
  /** ISO instant before which no attempt should start on the target (a quota reset…). */
  coolDownUntil?: string;
  /** The failure class that cooled it down. */
  reason?: string;
  /** Set when every candidate of a stage waits for a known reset: parked until then. */
  parkedUntil?: string;
  updatedAt: string;
}

/**
 * Target cool-down/park state. `coolDown` and `park` only ever move an instant later (two
 * machines reporting resets concurrently keep the later one); `clear` ends both. Durable once
 * resolved.
 */
export interface TargetStatePort {
  get(target: string): Promise<TargetState | undefined>;
  /** Every target with a state, sorted by id. */
  list(): Promise<TargetState[]>;
  coolDown(
    target: string,
    until: string,
    reason: string,
    options?: FencedWrite,
  ): Promise<TargetState>;
  park(target: string, until: string, options?: FencedWrite): Promise<TargetState>;
  clear(target: string, options?: FencedWrite): Promise<void>;
}
