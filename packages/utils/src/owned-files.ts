import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  writeSync,
} from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { SwitchyardError } from '@switchyard/core/errors';

// Files the dispatcher writes as its own never follow a symlink at their name (O_NOFOLLOW)
// and never block on a FIFO planted there (O_NONBLOCK; a regular file ignores it).
const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;
const FLAGS = {
  /** Append, creating the file when missing. */
  append: O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
  /** Create a new file; fails with EEXIST when the name exists (even as a symlink). */
  create: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK,
  /** Create or truncate. */
  replace: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK,
} as const;

/** How {@link openOwnedFile} opens a file. */
export type OwnedOpenMode = keyof typeof FLAGS;

/** Mode of files the dispatcher creates: they may quote agent output, so only the owner reads them. */
export const OWNED_FILE_MODE = 0o600;
/** Mode of folders the dispatcher creates. */
export const OWNED_DIR_MODE = 0o700;

/** The error for a dispatcher-owned path that is a symlink or not a regular file/folder. */
export function unsafePathError(path: string, what: string): SwitchyardError {
  return new SwitchyardError(
    'SY_UNSAFE_PATH',
    `${path} ${what}; switchyard never writes its own files through a symlink or into a special file`,
    {
      file: path,
      hint: 'remove it (switchyard recreates its own files and folders), then run again',
    },
  );
}

/**
 * Opens a dispatcher-owned file for writing without following a symlink at its name; a
 * FIFO, device or folder there is refused. Throws `SY_UNSAFE_PATH`, or the errno error
 * (EEXIST for `create` when the file exists).
 */
export function openOwnedFile(path: string, how: OwnedOpenMode): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[how], OWNED_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw unsafePathError(path, 'is a symlink');
    if (code === 'ENXIO') throw unsafePathError(path, 'is a FIFO');
    throw error;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw unsafePathError(path, 'is not a regular file');
  }
  return fd;
}

/** Writes a whole dispatcher-owned file (see {@link openOwnedFile}). */
export function writeOwnedFile(path: string, data: string | Uint8Array, how: OwnedOpenMode): void {
  const fd = openOwnedFile(path, how);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    closeSync(fd);
  }
}

/**
 * Throws `SY_UNSAFE_PATH` unless every existing component of `path` below `root` is a real
 * folder (no symlink). `root` is trusted (the workspace's real path); missing components
 * are fine (they will be created by {@link ensureOwnedDir}). Returns whether every component
 * exists as a real folder.
 */
export function assertNoSymlinkBelow(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === '') return true;
  if (rel.startsWith('..') || rel.startsWith(sep))
    throw unsafePathError(path, `is outside the workspace ${root}`);
  let at = root;
  for (const part of rel.split(sep)) {
    at = `${at}${sep}${part}`;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    if (stat.isSymbolicLink()) throw unsafePathError(at, 'is a symlink');
    // A plain file in the way is no escape: the caller's mkdir or open fails on it.
    if (!stat.isDirectory()) return false;
  }
  return true;
}

/** Creates `dir` (0700) and its missing parents below `root`, refusing any symlink on the way. */
export function ensureOwnedDir(root: string, dir: string): void {
  // All there already: nothing to create, and a second look would close no window (a symlink
  // planted after it is as possible as after the first).
  if (assertNoSymlinkBelow(root, dir)) return;
  mkdirSync(dir, { recursive: true, mode: OWNED_DIR_MODE });
  // A symlink planted between the check and mkdir: look again now that it all exists.
  assertNoSymlinkBelow(root, dir);
}

/** Writes a dispatcher-owned file below `root`: parents checked and created, no symlink followed. */
export function writeOwnedFileBelow(
  root: string,
  path: string,
  data: string | Uint8Array,
  how: OwnedOpenMode,
): void {
  ensureOwnedDir(root, dirname(path));
  writeOwnedFile(path, data, how);
}
