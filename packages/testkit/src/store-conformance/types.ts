import type { RunEvent, Store } from '@switchyard/core';

/** The test functions of the runner the suite registers its cases with (vitest, node:test). */
export interface ConformanceRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
}

/** How a child process opens the same store: `(await import(module))[exportName](arg, { now })`. */
export interface ChildOpener {
  /** Absolute path or file URL of an ES module. */
  module: string;
  exportName: string;
  /** JSON-serializable argument (e.g. the store's folder). */
  arg: unknown;
}

/** One empty store location a case works on. */
export interface StoreLocation {
  /** Opens a handle on the location: each is a separate holder with its own clock. */
  open(options: { now: () => number }): Promise<Store>;
  /** A writable local folder for attempt captures (their locators name folders under it). */
  captureRoot: string;
  /** For durable stores: how a child process opens it (enables the crash case). */
  child?: ChildOpener;
  /**
   * For `eventLogReset: 'on-replace'`: replaces the stored event log behind the open handles'
   * back by one holding `events` (none: the log is gone), as a later run leaves it after the
   * state folder was removed by hand. The handles only read the log afterwards.
   */
  replaceEventLog?(events: readonly RunEvent[]): Promise<void>;
  dispose?(): Promise<void>;
}

/** A store implementation under test. */
export interface StoreAdapter {
  name: string;
  /** True when the store outlives its process (every location then has a `child`): the
   * crash case runs. A memory store keeps nothing after a crash and skips it. */
  durable: boolean;
  /**
   * When a read of the event log may say `reset`. `on-replace`: the log can be replaced under
   * a reader (the file store's `events.jsonl`), every location has `replaceEventLog`, and the
   * suite checks that a reader at a position the log no longer holds is told and reads from
   * the start. `never`: the log is only ever appended to (a memory or database store), and the
   * suite checks that no read says `reset`.
   */
  eventLogReset: 'on-replace' | 'never';
  /** A fresh, empty location. */
  create(): Promise<StoreLocation>;
}
