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

/** The complete lines of an open file of `size` bytes after byte `from` (an incomplete last line is left for later). */
export function readJsonlLines(fd: number, size: number, from: number): JsonlLine[] {
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
  for (let nl = buffer.indexOf(0x0a, 0); nl !== -1 && nl < read; nl = buffer.indexOf(0x0a, start)) {
    lines.push({ end: from + nl + 1, text: buffer.toString('utf8', start, nl) });
    start = nl + 1;
  }
  return lines;
}
