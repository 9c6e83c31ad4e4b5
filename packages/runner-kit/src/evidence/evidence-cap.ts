import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ATTEMPT_FILES } from '../attempt/layout.js';

/** Default of `evidence.maxAttemptBytes`: the capture files of one attempt together. */
export const DEFAULT_MAX_ATTEMPT_EVIDENCE_BYTES = 8 * 1024 * 1024;

/** The files that grow with the agent's output (the rest are small and fixed). */
const CAPTURES = [
  ATTEMPT_FILES.stdoutRaw,
  ATTEMPT_FILES.stderrRaw,
  ATTEMPT_FILES.stream,
  ATTEMPT_FILES.normalized,
] as const;

/** Where the cuts of an attempt's evidence are listed (JSON). */
export const EVIDENCE_CUT_FILE = 'evidence-cut.json';

/** One capture file cut to its share of the cap. */
export interface EvidenceCut {
  file: string;
  originalBytes: number;
  keptBytes: number;
  cutBytes: number;
}

const CHUNK = 1 << 20;
/** Room kept for the marker line written where the middle was cut. */
const MARKER_ROOM = 256;

/**
 * Shares `max` bytes among files: a file within an equal share of what is left keeps all of
 * it, the others split the rest equally (so small files are never cut for large ones).
 */
function shares(sizes: readonly number[], max: number): number[] {
  const order = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size);
  const out = new Array<number>(sizes.length).fill(0);
  let left = max;
  order.forEach(({ size, index }, i) => {
    const share = Math.floor(left / (order.length - i));
    out[index] = Math.min(size, share);
    left -= out[index] as number;
  });
  return out;
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buf.subarray(0, done);
}

/** Copies `[from, end)` to `to` (< from) in chunks, front to back. */
function moveDown(fd: number, from: number, end: number, to: number): void {
  for (let pos = from; pos < end; pos += CHUNK) {
    const chunk = readAt(fd, Math.min(CHUNK, end - pos), pos);
    let done = 0;
    while (done < chunk.length)
      done += writeSync(fd, chunk, done, chunk.length - done, to + (pos - from) + done);
  }
}

/** Text capture: head and tail kept on line boundaries, a marker line saying what was cut. */
function cutText(fd: number, size: number, budget: number, max: number): number {
  const room = Math.max(0, budget - MARKER_ROOM);
  let head = Math.floor(room / 2);
  let tailStart = size - (room - head);
  // whole lines where a line break is near (within 4 KiB)
  const before = readAt(fd, Math.min(head, 4096), head - Math.min(head, 4096));
  const nl = before.lastIndexOf(0x0a);
  if (nl >= 0) head = head - before.length + nl + 1;
  const after = readAt(fd, Math.min(4096, size - tailStart), tailStart);
  const next = after.indexOf(0x0a);
  if (next >= 0 && next + 1 < after.length) tailStart += next + 1;
  const cut = tailStart - head;
  const marker = Buffer.from(
    `\n…[switchyard: ${cut} bytes cut here to keep this attempt's evidence within evidence.maxAttemptBytes (${max}); the head and the tail are kept]…\n`,
  );
  writeSync(fd, marker, 0, marker.length, head);
  moveDown(fd, tailStart, size, head + marker.length);
  const kept = head + marker.length + (size - tailStart);
  ftruncateSync(fd, kept);
  return kept;
}

/** `stream.log`: whole frames only (readers stop at a broken one); the offsets show the gap. */
function cutFrames(fd: number, size: number, budget: number): number {
  const frames: Array<{ start: number; end: number }> = [];
  for (let pos = 0; pos < size; ) {
    const head = readAt(fd, Math.min(128, size - pos), pos);
    const nl = head.indexOf(0x0a);
    const match =
      nl < 0 ? null : /^@\S+ \d+ (\d+) \S+$/.exec(head.subarray(0, nl).toString('latin1'));
    if (!match) break;
    const end = pos + nl + 1 + Number(match[1]) + 1;
    if (end > size) break;
    frames.push({ start: pos, end });
    pos = end;
  }
  const half = Math.floor(budget / 2);
  let h = 0;
  while (h < frames.length && (frames[h] as { end: number }).end <= half) h++;
  const headEnd = h === 0 ? 0 : (frames[h - 1] as { end: number }).end;
  let t = frames.length;
  const last = frames.at(-1)?.end ?? 0;
  while (t > h && last - (frames[t - 1] as { start: number }).start <= budget - headEnd) t--;
  const tailStart = t < frames.length ? (frames[t] as { start: number }).start : last;
  moveDown(fd, tailStart, last, headEnd);
  const kept = headEnd + (last - tailStart);
  ftruncateSync(fd, kept);
  return kept;
}

/**
 * Keeps an attempt's capture files (`stdout.raw`, `stderr.raw`, `stream.log`, the transcript)
 * within `maxBytes` together: each over its share keeps its head and tail, the middle cut out
 * in place — a marker line says how many bytes (in `stream.log`, whole frames go, and the
 * frame offsets show the gap). Every cut is listed in `evidence-cut.json`. Run after the
 * attempt has ended and been classified (the classifier read the tails while it ran). Never
 * follows a symlink.
 */
export function capAttemptEvidence(dir: string, maxBytes: number): EvidenceCut[] {
  const sizes = CAPTURES.map((name) => {
    try {
      const stat = lstatSync(join(dir, name));
      return stat.isFile() ? stat.size : 0;
    } catch {
      return 0;
    }
  });
  if (sizes.reduce((a, b) => a + b, 0) <= maxBytes) return [];
  const budgets = shares(sizes, maxBytes);
  const cuts: EvidenceCut[] = [];
  CAPTURES.forEach((name, i) => {
    const size = sizes[i] as number;
    const budget = budgets[i] as number;
    if (size <= budget || size - budget <= MARKER_ROOM) return;
    let fd: number;
    try {
      fd = openSync(
        join(dir, name),
        constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch {
      return;
    }
    try {
      if (!fstatSync(fd).isFile()) return;
      const kept =
        name === ATTEMPT_FILES.stream
          ? cutFrames(fd, size, budget)
          : cutText(fd, size, budget, maxBytes);
      cuts.push({ file: name, originalBytes: size, keptBytes: kept, cutBytes: size - kept });
    } finally {
      closeSync(fd);
    }
  });
  if (cuts.length > 0)
    writeNoteFile(join(dir, EVIDENCE_CUT_FILE), `${JSON.stringify({ maxBytes, cuts }, null, 2)}\n`);
  return cuts;
}

/** Writes a small note file of an attempt folder: owner-only, never through a symlink. */
export function writeNoteFile(file: string, text: string): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    const buf = Buffer.from(text);
    let done = 0;
    while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
  } finally {
    closeSync(fd);
  }
}
