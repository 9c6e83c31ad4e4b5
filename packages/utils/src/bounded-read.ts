import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { dirname, sep } from 'node:path';

/** Largest plan read by default (1 MiB); `SWITCHYARD_MAX_PLAN_BYTES` changes it. */
export const DEFAULT_MAX_PLAN_BYTES = 1024 * 1024;

/** The plan size cap: `SWITCHYARD_MAX_PLAN_BYTES` when it is a positive integer, else 1 MiB. */
export function maxPlanBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SWITCHYARD_MAX_PLAN_BYTES;
  if (raw !== undefined && /^[1-9]\d{0,12}$/.test(raw.trim())) return Number(raw.trim());
  return DEFAULT_MAX_PLAN_BYTES;
}

/** A bounded read: the text, or why the file was refused (nothing of it was read then). */
export type BoundedRead =
  | { ok: true; text: string }
  | {
      ok: false;
      reason: 'missing' | 'not-regular' | 'too-large' | 'unreadable';
      message: string;
      hint: string;
    };

/** Options of {@link readBoundedFile}. */
export interface BoundedReadOptions {
  /** Refuse files larger than this many bytes (checked on the open file, before reading). */
  maxBytes: number;
  /**
   * A symlink is followed only when its real path lies inside this folder (by default the
   * folder holding the file); otherwise it is refused.
   */
  within?: string;
}

// O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOFOLLOW: the name itself is
// never a symlink once opened (a checked symlink is opened by its real path).
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads a regular file of at most `maxBytes` bytes as UTF-8. FIFOs, devices, sockets,
 * folders, symlinks leaving `within` and files over the cap are refused from `fstat` of
 * the opened descriptor, so a `/dev/zero` or a FIFO never blocks or fills memory.
 */
export function readBoundedFile(path: string, options: BoundedReadOptions): BoundedRead {
  let openPath = path;
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const real = realpathSync.native(path);
      const folder = realpathSync.native(options.within ?? dirname(path));
      if (!real.startsWith(folder + sep))
        return refuse(
          'not-regular',
          `is a symlink to ${real}, outside ${folder}`,
          'replace the symlink by the file itself',
        );
      openPath = real;
    }
  } catch (error) {
    return errnoRefusal(error);
  }
  let fd: number;
  try {
    fd = openSync(openPath, OPEN_FLAGS);
  } catch (error) {
    return errnoRefusal(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      return refuse(
        'not-regular',
        `is ${kindOf(stat)}, not a regular file`,
        'write the plan as an ordinary file',
      );
    if (stat.size > options.maxBytes) return tooLarge(stat.size, options.maxBytes);
    // The file may grow between fstat and read: read at most one byte past the cap.
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, options.maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) {
        if (length > options.maxBytes) return tooLarge(length, options.maxBytes);
        break;
      }
    }
    return { ok: true, text: buffer.toString('utf8', 0, length) };
  } catch (error) {
    return errnoRefusal(error);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(size: number, max: number): BoundedRead {
  return refuse(
    'too-large',
    `is over the size cap of ${max} bytes (at least ${size} bytes)`,
    'split the task into smaller plans, or raise SWITCHYARD_MAX_PLAN_BYTES',
  );
}

function kindOf(stat: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'a special file';
}

function errnoRefusal(error: unknown): BoundedRead {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  if (code === 'ENOENT') return refuse('missing', 'does not exist', 'check the path');
  if (code === 'ELOOP')
    return refuse('not-regular', 'is a symlink', 'replace the symlink by the file itself');
  if (code === 'EISDIR')
    return refuse('not-regular', 'is a folder, not a regular file', 'give the path of a file');
  return refuse('unreadable', `cannot be read (${code})`, 'check its permissions');
}

function refuse(
  reason: 'missing' | 'not-regular' | 'too-large' | 'unreadable',
  message: string,
  hint: string,
): BoundedRead {
  return { ok: false, reason, message, hint };
}
