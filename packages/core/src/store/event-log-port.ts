import type { RunEvent } from '../events/event-schema.js';
import type { FencedWrite } from './fence.js';

/** An event as stored, with its sequence number. */
export interface StoredEvent {
  /** Strictly increasing in append order (gaps allowed); the position to read on from. */
  seq: number;
  event: RunEvent;
}

/** A page of the event log. */
export interface EventPage {
  events: StoredEvent[];
  /** Pass as `after` to read on (the last event's seq, or `after` when the page is empty). */
  next: number;
  /** Positions of stored entries that could not be read (a torn last line after a crash). */
  skipped: number[];
  /**
   * The log no longer holds position `after` (the file store's log was replaced or cut
   * shorter, e.g. its state folder removed by hand between runs): this page is read from the
   * start instead, and a reader drops every event it had read before.
   */
  reset?: true;
  /**
   * From a store whose log can be replaced: what tells it, at the next read from `next`, that
   * the log is still the one this page was read from (a replacement can hold `next` as a
   * position too). Opaque; pass it back with this page's `next`. Without it such a store can
   * only judge the position itself, and may miss a replacement.
   */
  mark?: string;
}

/**
 * The run event log: one ordered stream per store (every run of the workspace).
 *
 * `append` assigns the next sequence number. Appends of one writer keep their call order, and
 * each is stored before its promise resolves (a crash of the writer after that never loses
 * it; a crash during it loses at most that event, never an earlier one, and never makes the
 * log unreadable). `read` returns the events after a position in order, so a reader can
 * replay from where it stopped (an SSE `Last-Event-ID`).
 */
export interface EventLogPort {
  append(event: RunEvent, options?: FencedWrite): Promise<number>;
  /**
   * Events with `seq > after` (default 0: from the start), at most `limit`. `mark`: the `mark`
   * of the page whose `next` is `after` (a store whose log is only appended to ignores it).
   */
  read(options?: { after?: number; limit?: number; mark?: string }): Promise<EventPage>;
}
