import {
  closeSync,
  constants,
  fsync,
  openSync,
  readdirSync,
  rename,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Options of {@link replaceFile}. `durable` fsyncs the data before
 * the rename, so the new content also survives a power loss; without it the replacement is
 * still atomic for any process crash (the page cache keeps both the data and the rename).
 */
export interface ReplaceFileOptions {
  durable: boolean;
}

// A new temp file only: never through a symlink or a file planted at its (predictable) name.
// Owner-only: state quotes agent output.
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const TEMP_MODE = 0o600;

let sequence = 0;
const tempOf = (file: string) => `${file}.${process.pid}.${++sequence}.tmp`;

// Replacements of one file run one after another, so the last call's content is what stays.
const queues = new Map<string, Promise<void>>();

/**
 * Replaces `file` atomically: write a temp file beside it, optionally fsync, rename over.
 * Readers see the old or the new content, never a mix. Lean on purpose (no realpath, chown
 * or chmod per write): these files are created and owned by switchyard itself. The temp file
 * is created and written synchronously (page cache only); only the fsync and the rename go to
 * the thread pool (ext4 starts writeback when a rename replaces a file), as plain callbacks: a
 * FileHandle's open, write, sync and close cost about twice the CPU of the same write done
 * this way. Creating the temp file on the thread pool too took it off the event loop but cost
 * the dispatcher more CPU per attempt, its event loop's included (test/bench/README.md).
 */
export function replaceFile(
  file: string,
  data: string | Uint8Array,
  options: ReplaceFileOptions,
): Promise<void> {
  // Named for CPU profiles: the part after the first await has no caller frame above it.
  const replaceNow = async () => {
    sweepStaleTemps(dirname(file));
    const temp = tempOf(file);
    const fd = openSync(temp, TEMP_FLAGS, TEMP_MODE);
    fillTemp(fd, temp, data);
    try {
      if (options.durable) await call(fsync, fd);
    } catch (error) {
      closeSync(fd);
      unlinkQuietly(temp);
      throw error;
    }
    closeSync(fd);
    await call(rename, temp, file).catch((error) => {
      unlinkQuietly(temp);
      throw error;
    });
  };
  const previous = queues.get(file);
  const done = previous ? previous.then(replaceNow, replaceNow) : replaceNow();
  const tail = done.then(
    () => undefined,
    () => undefined,
  );
  queues.set(file, tail);
  void tail.then(() => {
    if (queues.get(file) === tail) queues.delete(file);
  });
  return done;
}

/**
 * {@link replaceFile} on this thread, not durable (no fsync): for files that are only an
 * optimization (a cache), written by callers that cannot wait.
 */
export function replaceFileSync(file: string, data: string | Uint8Array): void {
  sweepStaleTemps(dirname(file));
  const temp = tempOf(file);
  const fd = openSync(temp, TEMP_FLAGS, TEMP_MODE);
  fillTemp(fd, temp, data);
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
}

/** A callback-style fs call as a promise (no FileHandle, no fs/promises wrapper). */
function call<A extends unknown[]>(
  fn: (...args: [...A, (error: NodeJS.ErrnoException | null) => void]) => void,
  ...args: A
): Promise<void> {
  return new Promise((resolve, reject) =>
    fn(...args, (error) => (error ? reject(error) : resolve())),
  );
}

/** Writes the data into the open temp file (page cache only); closes and removes it again
 * when that fails. */
function fillTemp(fd: number, temp: string, data: string | Uint8Array): void {
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw error;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

// Folders already swept by this process.
const swept = new Set<string>();
const TEMP_NAME = /\.(\d+)\.\d+\.tmp$/;

/**
 * Removes temp files left in `dir` by writers that died between writing and renaming (a
 * SIGKILL): once per folder per process, before its first replacement. A temp file whose
 * writer is alive (or whose PID was reused) is left alone; it can only be renamed by it.
 */
function sweepStaleTemps(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no folder yet: nothing to sweep
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? Number.NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid))
      unlinkQuietly(join(dir, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}
