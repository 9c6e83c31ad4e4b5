import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { type RunEvent, runEventSchema } from '@switchyard/core';

/**
 * Follows `events.jsonl` incrementally: each {@link read} parses only the complete lines
 * appended since the last one, so a long log costs nothing per update. A file that shrank or
 * was replaced is read again from the start; a torn last line waits for its end.
 */
export class EventLogReader {
  private offset = 0;
  private ino = -1;
  private rest = '';
  private readonly events: RunEvent[] = [];
  private resets = 0;

  /** Times the log was read again from the start (replaced or shrunk): earlier events are void. */
  get generation(): number {
    return this.resets;
  }

  constructor(private readonly file: string) {}

  /** Every valid event so far, oldest first (the same array, grown in place). */
  read(): readonly RunEvent[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return this.events;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== this.ino || stat.size < this.offset) {
        if (this.events.length > 0 || this.offset > 0) this.resets += 1;
        this.ino = stat.ino;
        this.offset = 0;
        this.rest = '';
        this.events.length = 0;
      }
      if (stat.size > this.offset) {
        const buf = Buffer.alloc(stat.size - this.offset);
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        this.offset += n;
        const lines = (this.rest + buf.subarray(0, n).toString('utf8')).split('\n');
        this.rest = lines.pop() ?? '';
        for (const line of lines) this.parse(line);
      }
    } finally {
      closeSync(fd);
    }
    return this.events;
  }

  private parse(line: string): void {
    if (line.trim() === '') return;
    try {
      const parsed = runEventSchema.safeParse(JSON.parse(line));
      if (parsed.success) this.events.push(parsed.data);
    } catch {
      // a torn or foreign line is skipped, as `readEvents` does
    }
  }
}
