/** One line cut out of a byte stream by {@link LineFramer}. */
export interface FramedLine {
  /** 1-based line number in the stream. */
  lineNumber: number;
  /**
   * The line's bytes without the line break (`\n` or `\r\n`). At most `maxLineBytes`; a view
   * into the pushed chunk when possible, so copy it if you keep it past the callback.
   */
  bytes: Buffer;
  /** True when the line was longer than `maxLineBytes` and its rest was dropped. */
  truncated: boolean;
  /** The line's full length in bytes (kept + dropped), without the line break. */
  totalBytes: number;
}

export interface LineFramerOptions {
  /** Bytes kept per line; the rest is counted, not kept (default 1 MiB). */
  maxLineBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Cuts a byte stream into lines across arbitrary chunk boundaries. Memory stays bounded:
 * a line longer than `maxLineBytes` keeps only its head and counts the rest, so a 1 GB line
 * costs no more than a short one. A final line without a line break is emitted by `end()`.
 */
export class LineFramer {
  readonly #onLine: (line: FramedLine) => void;
  readonly #max: number;
  #parts: Buffer[] = [];
  #kept = 0;
  #total = 0;
  #lastByte = -1;
  #lineNumber = 0;

  constructor(onLine: (line: FramedLine) => void, options: LineFramerOptions = {}) {
    this.#onLine = onLine;
    this.#max = Math.max(1, options.maxLineBytes ?? 1024 * 1024);
  }

  /** Lines emitted so far. */
  get lineCount(): number {
    return this.#lineNumber;
  }

  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(LF, start);
      if (nl === -1) break;
      if (this.#total === 0) this.#emitDirect(buf, start, nl);
      else {
        this.#append(buf, start, nl);
        this.#flush();
      }
      start = nl + 1;
    }
    if (start < buf.length) this.#append(buf, start, buf.length);
  }

  /** Emits the last line when the stream did not end with a line break. */
  end(): void {
    if (this.#total > 0) this.#flush();
  }

  #emitDirect(buf: Buffer, start: number, end: number): void {
    let stop = end;
    if (stop > start && buf[stop - 1] === CR) stop--;
    const total = stop - start;
    const keep = Math.min(total, this.#max);
    this.#onLine({
      lineNumber: ++this.#lineNumber,
      bytes: buf.subarray(start, start + keep),
      truncated: keep < total,
      totalBytes: total,
    });
  }

  #append(buf: Buffer, start: number, end: number): void {
    const length = end - start;
    if (length === 0) return;
    this.#total += length;
    this.#lastByte = buf[end - 1]!;
    const room = this.#max + 1 - this.#kept; // one spare byte so a trailing CR can be dropped
    if (room > 0) {
      const take = Math.min(room, length);
      // copy: the caller may reuse the chunk's memory after push() returns
      this.#parts.push(Buffer.from(buf.subarray(start, start + take)));
      this.#kept += take;
    }
  }

  #flush(): void {
    const endsWithCr = this.#lastByte === CR;
    const total = this.#total - (endsWithCr ? 1 : 0);
    const keep = Math.min(total, this.#max);
    const joined = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
    this.#onLine({
      lineNumber: ++this.#lineNumber,
      bytes: joined.subarray(0, keep),
      truncated: keep < total,
      totalBytes: total,
    });
    this.#parts = [];
    this.#kept = 0;
    this.#total = 0;
    this.#lastByte = -1;
  }
}
