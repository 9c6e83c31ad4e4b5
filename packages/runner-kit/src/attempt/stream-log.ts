import { open } from 'node:fs/promises';
import type { StreamName } from '../evidence/evidence-collector.js';

/**
 * `stream.log` framing. The log is a sequence of frames, one per chunk read from the agent's
 * stdout or stderr, in the order the dispatcher read them:
 *
 * ```
 * @<stream> <offset> <length> <iso-time>\n
 * <length raw bytes>\n
 * ```
 *
 * `<stream>` is `stdout` or `stderr`, `<offset>` the chunk's byte offset within that stream
 * (so `offset + length` of a stream's last frame is how far it was consumed), `<length>` a
 * decimal byte count. The bytes are raw (any encoding, any line breaks) and the trailing
 * `\n` only separates frames. A frame cut short by a crash is dropped by readers.
 */
export interface StreamFrame {
  stream: StreamName;
  offset: number;
  at: string;
  data: Buffer;
}

/** The header line of a frame. */
export function frameHeader(stream: StreamName, offset: number, length: number, at: Date): Buffer {
  return Buffer.from(`@${stream} ${offset} ${length} ${at.toISOString()}\n`);
}

const HEADER = /^@(stdout|stderr) (\d+) (\d+) (\S+)$/;
const MAX_HEADER = 128;

interface FrameHead {
  stream: StreamName;
  offset: number;
  length: number;
  at: string;
  headerBytes: number;
}

async function readHead(
  handle: Awaited<ReturnType<typeof open>>,
  position: number,
): Promise<FrameHead | undefined> {
  const buf = Buffer.alloc(MAX_HEADER);
  const { bytesRead } = await handle.read(buf, 0, MAX_HEADER, position);
  const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
  if (nl === -1) return undefined;
  const match = HEADER.exec(buf.subarray(0, nl).toString('latin1'));
  if (!match) return undefined;
  return {
    stream: match[1] as StreamName,
    offset: Number(match[2]),
    length: Number(match[3]),
    at: match[4]!,
    headerBytes: nl + 1,
  };
}

/** Reads every complete frame of a stream.log, one chunk in memory at a time. */
export async function* readStreamLog(file: string): AsyncGenerator<StreamFrame> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    let position = 0;
    while (position < size) {
      const head = await readHead(handle, position);
      if (!head || position + head.headerBytes + head.length + 1 > size) return;
      const data = Buffer.alloc(head.length);
      await handle.read(data, 0, head.length, position + head.headerBytes);
      yield { stream: head.stream, offset: head.offset, at: head.at, data };
      position += head.headerBytes + head.length + 1;
    }
  } finally {
    await handle.close();
  }
}

/** How far each stream was consumed according to the log, and its length of complete frames. */
export interface StreamLogPosition {
  stdout: number;
  stderr: number;
  /** Bytes of the log that hold complete frames (a torn last frame starts here). */
  validBytes: number;
}

/** Scans the frame headers (seeking over the data) to find where tailing should resume. */
export async function scanStreamLog(file: string): Promise<StreamLogPosition> {
  const result: StreamLogPosition = { stdout: 0, stderr: 0, validBytes: 0 };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch {
    return result;
  }
  try {
    const { size } = await handle.stat();
    let position = 0;
    while (position < size) {
      const head = await readHead(handle, position);
      const next = head ? position + head.headerBytes + head.length + 1 : size + 1;
      if (!head || next > size) break;
      result[head.stream] = head.offset + head.length;
      position = next;
      result.validBytes = position;
    }
    return result;
  } finally {
    await handle.close();
  }
}
