import {
  type EventLogPort,
  type RunEvent,
  runEventSchema,
  type StoredEvent,
} from '@switchyard/core';
import type { FsLeases } from './fs-leases.js';
import { endsLineAt, JsonlAppender, readJsonlLines } from './jsonl-file.js';

/**
 * The event log in `events.jsonl`, one JSON line per event, as before. An event's sequence
 * number is the byte offset just past its line, so reading on from a position is a seek. The
 * line is written before `append` returns (no fsync: a dispatcher crash keeps the page cache).
 * A fenced append is checked against the leases as they are on disk at that moment. A read
 * from a position the file no longer holds (replaced by hand) starts over and says so (`reset`).
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
      let after = Math.max(0, options.after ?? 0);
      // A position the log no longer holds: it was replaced, so it is read from the start.
      const reset = !endsLineAt(file, after);
      if (reset) after = 0;
      const events: StoredEvent[] = [];
      const skipped: number[] = [];
      let next = after;
      for (const line of readJsonlLines(file, after)) {
        if (options.limit !== undefined && events.length >= options.limit) break;
        next = line.end;
        if (line.text.trim() === '') continue;
        const event = parseEvent(line.text);
        if (event) events.push({ seq: line.end, event });
        else skipped.push(line.end);
      }
      return { events, next, skipped, ...(reset ? { reset: true as const } : {}) };
    },
    close: () => appender.close(),
  };
}

function parseEvent(text: string): RunEvent | undefined {
  try {
    const parsed = runEventSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
