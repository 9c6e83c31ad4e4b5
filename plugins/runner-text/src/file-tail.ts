import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 64 * 1024;

/**
 * Reads a growing file from an offset in bounded chunks (one reusable buffer: memory stays
 * flat whatever the file size). The file is written by another process through its own fd.
 */
export class FileTail {
  readonly #fd: number;
  readonly #buf = Buffer.allocUnsafe(CHUNK);
  #offset: number;

  constructor(file: string, offset = 0) {
    this.#fd = openSync(file, 'r');
    this.#offset = offset;
  }

  get offset(): number {
    return this.#offset;
  }

  /**
   * Hands each new chunk (a view, valid only during the callback) to `onChunk`, reading at
   * most `maxBytes` this call. Returns the bytes read; 0 means end of file for now.
   */
  read(onChunk: (chunk: Buffer, offset: number) => void, maxBytes = 8 * 1024 * 1024): number {
    let total = 0;
    while (total < maxBytes) {
      const n = readSync(this.#fd, this.#buf, 0, CHUNK, this.#offset);
      if (n === 0) break;
      onChunk(this.#buf.subarray(0, n), this.#offset);
      this.#offset += n;
      total += n;
    }
    return total;
  }

  /** Reads `[from, to)` without moving the tail (used to rebuild context on reattach). */
  readRange(from: number, to: number): Buffer {
    const out = Buffer.alloc(Math.max(0, to - from));
    let done = 0;
    while (done < out.length) {
      const n = readSync(this.#fd, out, done, out.length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return out.subarray(0, done);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
