import { systemTimers, type Timers } from './clock.js';

/**
 * Writes held back for a while so that later changes share them (a lease batch, the transitions
 * of tasks waiting for a slot, a running attempt's PID that its end's write usually carries).
 * Each pending write has a key; the timers run on an injectable clock, so tests move time by
 * hand. What a pending write may lose in a crash is its owner's rule to document: the timers do
 * not keep a process alive, and whoever ends a run calls {@link DeferredWrites.flush} or
 * {@link DeferredWrites.settle}.
 */
export interface DeferredWrites {
  /**
   * Runs `write` once `ms` have passed, unless `key` is pending already: then the pending
   * time stands (changes made meanwhile share one write) and `write` replaces its write, so
   * the write that runs is the latest. Writes of one key run one after another.
   */
  defer(key: string, ms: number, write: () => Promise<void>): void;
  /** Whether `key` has a write waiting for its time. */
  pending(key: string): boolean;
  /** Runs every pending write now and awaits them with the writes under way. */
  flush(): Promise<void>;
  /** Drops the pending writes (their owner writes what is left) and awaits those under way. */
  settle(): Promise<void>;
}

interface Pending {
  cancel(): void;
  write(): Promise<void>;
}

/**
 * {@link DeferredWrites} on `timers` (the system's by default). A write's failure is its own
 * to handle: a rejection is swallowed here so that one failed write neither stops the next of
 * its key nor surfaces as an unhandled rejection from a timer.
 */
export function deferredWrites(timers: Timers = systemTimers): DeferredWrites {
  const waiting = new Map<string, Pending>();
  const running = new Map<string, Promise<void>>();
  const start = (key: string) => {
    const entry = waiting.get(key);
    if (!entry) return;
    waiting.delete(key);
    entry.cancel();
    const previous = running.get(key) ?? Promise.resolve();
    const done = previous.then(() => entry.write().catch(() => undefined));
    running.set(key, done);
    void done.then(() => {
      if (running.get(key) === done) running.delete(key);
    });
  };
  const underWay = async () => {
    while (running.size > 0) await Promise.all(running.values());
  };
  return {
    defer(key, ms, write) {
      const entry = waiting.get(key);
      if (entry) {
        entry.write = write;
        return;
      }
      const next: Pending = { cancel: () => undefined, write };
      waiting.set(key, next);
      next.cancel = timers.after(ms, () => start(key));
    },
    pending: (key) => waiting.has(key),
    async flush() {
      for (const key of [...waiting.keys()]) start(key);
      await underWay();
    },
    async settle() {
      for (const entry of waiting.values()) entry.cancel();
      waiting.clear();
      await underWay();
    },
  };
}
