import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  unlinkSync,
  write as writeCallback,
} from 'node:fs';
import { corrupt } from './json-file.js';

/**
 * The task-state journal: `tasks.journal.jsonl` in the state folder, one line per task-state
 * write of an exclusive store (`{"task","revision","state"}`), appended instead of an atomic
 * replacement of the task's file (a new inode per write, the costliest file-system call of a
 * run). The first line names the journal (a random id), so a reader tells a new journal from
 * the one it read before even where the file system reuses the inode number. Reads overlay
 * its records over the per-task files (the higher revision wins); a compaction writes the
 * per-task files from it and removes it (see fs-tasks.ts).
 */
export const TASK_JOURNAL_FILE = 'tasks.journal.jsonl';

const HINT =
  'The journal is only appended to, so this means it was edited or damaged by hand. Stop every dispatcher, then remove tasks.journal.jsonl: the task files keep the state as of its last compaction.';

/** A task's record in the journal: its revision and the line's text (parsed when read). */
export interface JournalRecord {
  version: number;
  line: string;
}

/** A journal's header line: fixed length, so a reader can compare it with one read. */
function headerLine(id: string): string {
  return `${JSON.stringify({ journal: 'switchyard task states', id })}\n`;
}
const HEADER_BYTES = Buffer.byteLength(headerLine('0'.repeat(16)));

/** One record's line. */
export function journalLine(task: string, version: number, state: unknown): string {
  return `${JSON.stringify({ task, revision: version, state })}\n`;
}

/** The state a record's line carries (a fresh object on each call). */
export function recordState(record: JournalRecord): unknown {
  return (JSON.parse(record.line) as { state: unknown }).state;
}

/**
 * The journal as a reader sees it, kept up to date by reading only what was appended since
 * the last look: a file with another header or a shorter length is read again from the start,
 * an absent one (compacted) has no records. A last line without its newline is a write under
 * way or torn by a crash: not a record (yet).
 */
export function journalView(file: string) {
  let seen: { header: string; offset: number } | undefined;
  let records = new Map<string, JournalRecord>();
  const reset = () => {
    seen = undefined;
    records = new Map();
  };
  return {
    refresh(): ReadonlyMap<string, JournalRecord> {
      let fd: number;
      try {
        fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        reset();
        return records;
      }
      try {
        const size = fstatSync(fd).size;
        if (size < HEADER_BYTES) {
          reset(); // created, its header not written yet
          return records;
        }
        const header = readRange(fd, 0, HEADER_BYTES);
        if (!seen || seen.header !== header || size < seen.offset) {
          reset();
          seen = { header, offset: HEADER_BYTES };
        }
        if (size > seen.offset) {
          const text = readRange(fd, seen.offset, size - seen.offset);
          seen.offset += parseLines(file, text, records);
        }
        return records;
      } finally {
        closeSync(fd);
      }
    },
  };
}

function readRange(fd: number, position: number, length: number): string {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.toString('utf8', 0, read);
}

/** Adds the complete lines of `text` to `records`; returns how many bytes they took. */
function parseLines(file: string, text: string, records: Map<string, JournalRecord>): number {
  let start = 0;
  let bytes = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end < 0) return bytes; // the rest is torn or under way
    const line = text.slice(start, end + 1);
    bytes += Buffer.byteLength(line);
    start = end + 1;
    let parsed: { task?: unknown; revision?: unknown };
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw corrupt(file, `a record is not JSON (${(error as Error).message})`, HINT, error);
    }
    if (typeof parsed.task !== 'string' || typeof parsed.revision !== 'number')
      throw corrupt(file, 'a record without task or revision', HINT);
    const known = records.get(parsed.task);
    if (!known || known.version < parsed.revision)
      records.set(parsed.task, { version: parsed.revision, line });
  }
}

/**
 * The journal's writer (one process: the exclusive store). Lines appended while a write is
 * under way, or in the same tick, share the next write (group commit); each `append` resolves
 * once its line is in the file. Not fsynced, as the task files it stands for are not (see
 * fs-tasks.ts): a dispatcher crash keeps the page cache, a power loss kills every agent too.
 */
export function journalWriter(file: string) {
  let fd: number | undefined;
  let bytes = 0;
  let openedAt = 0;
  let batch: { lines: string[]; done: Promise<void>; resolve(): void; reject(e: unknown): void } =
    newBatch();
  let writing: Promise<void> | undefined;
  const open = (now: number) => {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    bytes = fstatSync(fd).size;
    openedAt = now;
    if (bytes > 0) return; // the caller compacted a left-over journal before opening this one
    batch.lines.unshift(headerLine(randomBytes(8).toString('hex')));
  };
  const writeBatch = async () => {
    const current = batch;
    batch = newBatch();
    try {
      const data = Buffer.from(current.lines.join(''));
      await writeAll(fd as number, data);
      bytes += data.length;
      current.resolve();
    } catch (error) {
      current.reject(error);
    }
  };
  const kick = () => {
    if (writing) return;
    writing = (async () => {
      await Promise.resolve(); // the rest of this tick joins the batch
      while (batch.lines.length > 0) await writeBatch();
      writing = undefined;
    })();
  };
  return {
    /** Appends a record (opening a new journal at `now` when none is open). */
    append(line: string, now: number): Promise<void> {
      if (fd === undefined) open(now);
      batch.lines.push(line);
      const { done } = batch;
      kick();
      return done;
    },
    /** Bytes in the journal and when this process opened it. */
    size: () => ({ bytes, openedAt, open: fd !== undefined }),
    /** Waits for the lines appended so far to be written. */
    async drain(): Promise<void> {
      while (writing) await writing;
    },
    /** Drains, closes and removes the journal (its records are in the task files by then). */
    async remove(): Promise<void> {
      while (writing) await writing;
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      bytes = 0;
      try {
        unlinkSync(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
}

function newBatch() {
  let resolve: () => void = () => undefined;
  let reject: (e: unknown) => void = () => undefined;
  const done = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  done.catch(() => undefined); // each append's caller sees the failure
  return { lines: [] as string[], done, resolve, reject };
}

/** Writes all of `data` at the end of the file (O_APPEND), as plain callbacks. */
async function writeAll(fd: number, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    offset += await new Promise<number>((resolve, reject) =>
      writeCallback(fd, data, offset, data.length - offset, null, (error, n) =>
        error ? reject(error) : resolve(n),
      ),
    );
  }
}
