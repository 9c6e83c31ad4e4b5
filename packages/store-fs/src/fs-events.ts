import { closeSync, fstatSync, openSync } from 'node:fs';
import {
  type EventLogPort,
  type RunEvent,
  runEventSchema,
  type StoredEvent,
} from '@switchyard/core';
import { holdsPosition, markAt, type OpenLog } from './event-log-mark.js';
import type { FsLeases } from './fs-leases.js';
import { JsonlAppender, readJsonlLines } from './jsonl-file.js';

/**
 * The event log in `events.jsonl`, one JSON line per event, as before. An event's sequence
 * number is the byte offset just past its line, so reading on from a position is a seek. The
 * line is written before `append` returns (no fsync: a dispatcher crash keeps the page cache).
 * A fenced append is checked against the leases as they are on disk at that moment. A read
 * from a position the file no longer holds (removed or rewritten by hand) starts over and says
 * so (`reset`); each page's `mark` lets the next read tell a replacement that holds the
 * position too (see event-log-mark.ts).
 */
export interface FsEventLog extends EventLogPort {
  close(): void;
}

export function fsEvents(file: string, leases: FsLeases): FsEventLog {
  const appender = new JsonlAppender(file);
  return {
    async append(event, options) {
      leases.check(options?.fence);
      return appender.append(JSON.stringify(event));
    },
    async read(options = {}) {
      // One descriptor for the check and the read: a replacement in between cannot mix them.
      const log = openLog(file);
      try {
        let after = Math.max(0, options.after ?? 0);
        const reset = after > 0 && !(log && holdsPosition(log, after, options.mark));
        if (reset) after = 0;
        const events: StoredEvent[] = [];
        const skipped: number[] = [];
        let next = after;
        for (const line of log ? readJsonlLines(log.fd, log.size, after) : []) {
          if (options.limit !== undefined && events.length >= options.limit) break;
          next = line.end;
          if (line.text.trim() === '') continue;
          const event = parseEvent(line.text);
          if (event) events.push({ seq: line.end, event });
          else skipped.push(line.end);
        }
        const mark = log && next > 0 ? markAt(log, next) : undefined;
        return {
          events,
          next,
          skipped,
          ...(reset ? { reset: true as const } : {}),
          ...(mark ? { mark } : {}),
        };
      } finally {
        if (log) closeSync(log.fd);
      }
    },
    close: () => appender.close(),
  };
}

/** The events file open for reading, or undefined when there is none. */
function openLog(file: string): OpenLog | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    return { fd, size: Number(stat.size), identity: `${stat.dev}:${stat.ino}` };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function parseEvent(text: string): RunEvent | undefined {
  try {
    const parsed = runEventSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
