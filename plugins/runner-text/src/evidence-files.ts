import { close, fsync, openSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  attemptPaths,
  formatHeartbeat,
  frameHeader,
  type Heartbeat,
  type StreamName,
} from '@switchyard/runner-kit';
import { EVIDENCE_APPEND, EVIDENCE_MODE } from './owned-append.js';

function writeAll(fd: number, data: Buffer | string): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done);
}

const NL = Buffer.from('\n');
const fsyncAsync = promisify(fsync);
const closeAsync = promisify(close);

/** The dispatcher-written evidence files of one attempt, appended incrementally. */
export class EvidenceFiles {
  readonly #stream: number;
  readonly #normalized: number;
  readonly #heartbeat: number;
  #pending: string[] = [];
  #pendingChars = 0;

  constructor(dir: string) {
    const paths = attemptPaths(dir);
    this.#stream = openSync(paths.stream, EVIDENCE_APPEND, EVIDENCE_MODE);
    this.#normalized = openSync(paths.normalized, EVIDENCE_APPEND, EVIDENCE_MODE);
    this.#heartbeat = openSync(paths.heartbeat, EVIDENCE_APPEND, EVIDENCE_MODE);
  }

  /** Appends one stream.log frame (see core `stream-log.ts` for the framing). */
  frame(stream: StreamName, offset: number, data: Buffer): void {
    writeAll(
      this.#stream,
      Buffer.concat([frameHeader(stream, offset, data.length, new Date()), data, NL]),
    );
  }

  /** Queues a transcript line; written in batches by `flush()` (one syscall per read chunk). */
  normalized(line: string): void {
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars > 1 << 20) this.flush();
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    writeAll(this.#normalized, `${this.#pending.join('\n')}\n`);
    this.#pending = [];
    this.#pendingChars = 0;
  }

  heartbeat(beat: Heartbeat): void {
    writeAll(this.#heartbeat, formatHeartbeat(beat));
  }

  /** fsyncs (concurrently, off the event loop) and closes every file. */
  async close(): Promise<void> {
    this.flush();
    await Promise.all(
      [this.#stream, this.#normalized, this.#heartbeat].map(async (fd) => {
        try {
          await fsyncAsync(fd);
        } finally {
          await closeAsync(fd);
        }
      }),
    );
  }
}
