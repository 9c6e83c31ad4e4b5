import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';

/** The events file as one read sees it: one descriptor, one fstat. */
export interface OpenLog {
  fd: number;
  size: number;
  /** Device and inode: a log written anew as another file (removed and begun again, renamed over) has others. */
  identity: string;
}

/**
 * Bytes compared at each end of what a reader has read. The identity alone misses two
 * replacements: a log rewritten in place (same inode), and one removed and begun again, whose
 * new file ext4 gives the freed inode (194 and 200 of 200 remove-and-create pairs measured
 * here). The first event (its run and time) and the last ones read differ in those.
 */
const WINDOW = 256;

/**
 * The mark of `position` in `log` (`EventPage.mark`): the file's identity, the position, and a
 * digest of the first and the last bytes before it, which appends never change.
 */
export function markAt(log: OpenLog, position: number): string {
  return `${log.identity}:${position}:${digestBefore(log.fd, position)}`;
}

/**
 * Whether `log` still holds position `after` as the reader saw it. With the mark of the page
 * it read last: the same file, at least as long, and the same bytes before the marked
 * position. Without one (a position from elsewhere) only the position itself can be judged:
 * it must be 0 or just past a line end, which a replacement holding a line end there passes.
 */
export function holdsPosition(log: OpenLog, after: number, mark: string | undefined): boolean {
  if (after === 0) return true;
  if (log.size < after) return false;
  if (mark !== undefined) {
    const marked = Number(mark.split(':')[2]);
    if (!Number.isSafeInteger(marked) || marked > log.size || markAt(log, marked) !== mark)
      return false;
    if (marked === after) return true;
  }
  // A mark of another position vouches for the log up to that one only.
  return readBytes(log.fd, after - 1, 1)[0] === 0x0a;
}

function digestBefore(fd: number, position: number): string {
  const head = readBytes(fd, 0, Math.min(WINDOW, position));
  const tailStart = Math.max(0, position - WINDOW);
  const tail = readBytes(fd, tailStart, position - tailStart);
  return createHash('sha256').update(head).update(tail).digest('hex').slice(0, 16);
}

function readBytes(fd: number, from: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, from + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}
