import { closeSync, mkdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventLogPort } from '@switchyard/core';
import { openOwnedFile, type RunEvent, type RunEventInput, runEventSchema } from '@switchyard/core';
import type { StartGuard, StartRequest, StartVeto } from './start-guard.js';

/** A subscriber of the run stream; it must not throw (errors are reported, not propagated). */
export type RunEventListener = (event: RunEvent) => void;

/** Options of {@link createEventBus}. */
export interface EventBusOptions {
  /** Id stamped on every event. */
  runId: string;
  /** Stamped on every event when given: the machine of a dispatcher on a shared store. */
  machine?: string;
  /** The store's event log every event is appended to (in emit order). */
  log?: EventLogPort;
  /** JSONL file the events are appended to (created with its directory), e.g. events.jsonl. */
  file?: string;
  /** Validate every event against the schema before emitting (on in tests; cheap anyway). */
  validate?: boolean;
  /** Called once when persisting fails; the bus keeps emitting to listeners. */
  onPersistError?: (error: unknown) => void;
  /** Clock, for tests. */
  now?: () => Date;
  /** Rewrites every event before it is written or passed on (the run's secret redaction). */
  redact?: <T>(event: T) => T;
}

/** Emits run events to listeners and appends them, one JSON line each, to a file. */
export interface EventBus {
  readonly runId: string;
  emit(event: RunEventInput): RunEvent;
  on(listener: RunEventListener): () => void;
  /** Registers a guard asked before every start (see `start-guard.ts`); returns its removal. */
  beforeStart(guard: StartGuard): () => void;
  /** Asks the guards in the order they registered; the first refusal, or undefined. */
  requestStart(request: StartRequest): StartVeto | undefined;
  /** Resolves once every event emitted so far is in the store's log (or failed to get there). */
  flush(): Promise<void>;
  close(): void;
}

/**
 * Creates the run's event bus. Lines are written with one `write` each on an O_APPEND
 * descriptor, so a crash can at worst leave one torn last line, which store-fs's `readEvents`
 * skips.
 */
export function createEventBus(options: EventBusOptions): EventBus {
  const listeners = new Set<RunEventListener>();
  const guards = new Set<StartGuard>();
  const now = options.now ?? (() => new Date());
  let fd: number | undefined;
  let persistFailed = false;
  const appending = new Set<Promise<unknown>>();
  if (options.file) {
    try {
      mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
      fd = openOwnedFile(options.file, 'append');
    } catch (error) {
      persistFailed = true;
      options.onPersistError?.(error);
    }
  }
  return {
    runId: options.runId,
    emit(input) {
      const raw = {
        at: now().toISOString(),
        runId: options.runId,
        ...(options.machine ? { machine: options.machine } : {}),
        ...input,
      } as RunEvent;
      const event = options.redact ? options.redact(raw) : raw;
      if (options.validate) runEventSchema.parse(event);
      if (options.log && !persistFailed) {
        // The store keeps call order; the file store writes the line before append returns.
        const append = options.log.append(event).catch((error: unknown) => {
          if (persistFailed) return;
          persistFailed = true;
          options.onPersistError?.(error);
        });
        appending.add(append);
        void append.finally(() => appending.delete(append));
      }
      if (fd !== undefined && !persistFailed) {
        try {
          writeSync(fd, `${JSON.stringify(event)}\n`);
        } catch (error) {
          persistFailed = true;
          options.onPersistError?.(error);
        }
      }
      for (const listener of listeners) listener(event);
      return event;
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    beforeStart(guard) {
      guards.add(guard);
      return () => guards.delete(guard);
    },
    requestStart(request) {
      for (const guard of guards) {
        const veto = guard(request);
        if (veto) return veto;
      }
      return undefined;
    },
    async flush() {
      while (appending.size > 0) await Promise.allSettled([...appending]);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      listeners.clear();
      guards.clear();
    },
  };
}
