import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { openOwnedFile } from '@switchyard/utils';

/**
 * An append-only JSON-lines file. Each line goes out in one `write()` on an O_APPEND
 * descriptor, so a crash leaves at worst one torn last line; the first append after opening
 * ends such a line first, so the torn fragment never swallows the next record.
 */
export class JsonlAppender {
  #fd: number | undefined;

  constructor(readonly file: string) {}

  /** Appends one line; returns the file's size after it (the byte just past the line). */
  append(line: string): number {
    const fd = this.#open();
    writeSync(fd, `${line}\n`);
    return fstatSync(fd).size;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const fd = openOwnedFile(this.file, 'append');
    const size = fstatSync(fd).size;
    if (size > 0 && lastByte(this.file, size) !== 0x0a) writeSync(fd, '\n');
    this.#fd = fd;
    return fd;
  }
}

function lastByte(file: string, size: number): number {
  const fd = openSync(file, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0] as number;
  } finally {
    closeSync(fd);
  }
}

/** One complete line of a JSON-lines file, with the offset just past its newline. */
export interface JsonlLine {
  end: number;
  text: string;
}

/** The complete lines after byte `from` (an incomplete last line is left for later). */
export function readJsonlLines(file: string, from: number): JsonlLine[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= from) return [];
    const buffer = Buffer.alloc(size - from);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    const lines: JsonlLine[] = [];
    let start = 0;
    for (
      let nl = buffer.indexOf(0x0a, 0);
      nl !== -1 && nl < read;
      nl = buffer.indexOf(0x0a, start)
    ) {
      lines.push({ end: from + nl + 1, text: buffer.toString('utf8', start, nl) });
      start = nl + 1;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `offset` can be a position of the file as a reader last saw it: 0, or just past a
 * newline it still holds. A log replaced or cut shorter (its folder removed by hand between
 * runs) fails this at almost every old position; a replacement that happens to hold a newline
 * there is not told apart.
 */
export function endsLineAt(file: string, offset: number): boolean {
  if (offset === 0) return true;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    if (fstatSync(fd).size < offset) return false;
    const byte = Buffer.alloc(1);
    return readSync(fd, byte, 0, 1, offset - 1) === 1 && byte[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
