import {
  closeSync,
  constants,
  open as openCallback,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Options of {@link replaceFile}. `durable` fsyncs the data before
 * the rename, so the new content also survives a power loss; without it the replacement is
 * still atomic for any process crash (the page cache keeps both the data and the rename).
 */
export interface ReplaceFileOptions {
  durable: boolean;
  /**
   * The folder's files are replaced again and again (task states, claims, leases): its temp
   * files are created ahead, a few at a time on the thread pool (see {@link takeSpareTemp}),
   * so a replacement does not create a file on the caller's thread.
   */
  frequent?: boolean;
  /**
   * With `frequent`: the folder whose temp files made ahead serve this file, when its own
   * folder is written only a few times (each attempt's capture folder: the spares live in
   * their common parent). It must be on the file's file system (a rename moves the temp in).
   */
  sparesIn?: string;
}

// A new temp file only: never through a symlink or a file planted at its (predictable) name.
// Owner-only: state quotes agent output.
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

let sequence = 0;
const tempOf = (file: string) => `${file}.${process.pid}.${++sequence}.tmp`;

// Replacements of one file run one after another, so the last call's content is what stays.
const queues = new Map<string, Promise<void>>();

/**
 * Replaces `file` atomically: write a temp file beside it, optionally fsync, rename over.
 * Readers see the old or the new content, never a mix. Lean on purpose (no realpath, chown
 * or chmod per write): these files are created and owned by switchyard itself. The temp file
 * of a write that is not durable is written synchronously (page cache only: cheaper than
 * three thread-pool round trips; with `frequent`, into a temp file created ahead); the
 * rename always goes to the thread pool, since ext4 starts writeback when a rename replaces
 * a file.
 */
export function replaceFile(
  file: string,
  data: string | Uint8Array,
  options: ReplaceFileOptions,
): Promise<void> {
  const run = async () => {
    const dir = dirname(file);
    sweepStaleTemps(dir);
    const write = (temp: string, spare: boolean) =>
      options.durable ? writeDurably(temp, data, spare) : writeTemp(temp, data, spare);
    const sparesIn = options.sparesIn ?? dir;
    const spare = options.frequent ? takeSpareTemp(sparesIn) : undefined;
    if (spare !== undefined) {
      try {
        await write(spare, true);
        await rename(spare, file);
        return;
      } catch (error) {
        await unlink(spare).catch(() => undefined);
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'EXDEV') throw error;
        // the spares' folder was removed (and made again) since, or is on another file
        // system (then only the file's own folder serves): as before, a temp file beside it
        if (code === 'ENOENT') forgetSpares(sparesIn);
      }
    }
    const temp = tempOf(file);
    await write(temp, false);
    await rename(temp, file).catch(async (error) => {
      await unlink(temp).catch(() => undefined);
      throw error;
    });
  };
  const previous = queues.get(file);
  const done = previous ? previous.then(run, run) : run();
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
  writeTemp(temp, data);
  try {
    renameSync(temp, file);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
}

async function writeDurably(
  temp: string,
  data: string | Uint8Array,
  created: boolean,
): Promise<void> {
  const handle = await open(temp, created ? SPARE_FLAGS : TEMP_FLAGS, 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
}

/** Writes the temp file (page cache only); removes it again when that fails. `created`: a
 * spare temp file made ahead (see {@link takeSpareTemp}), opened without creating. */
function writeTemp(temp: string, data: string | Uint8Array, created = false): void {
  const fd = openSync(temp, created ? SPARE_FLAGS : TEMP_FLAGS, 0o600);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw error;
  }
  closeSync(fd);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

// A spare temp file made ahead is opened as it is: never through a symlink, never a FIFO.
const SPARE_FLAGS = constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const SPARES_PER_FOLDER = 8;
// Per folder: empty temp files this process created ahead (names ending .<pid>.<n>.tmp, so a
// writer that dies leaves them to the next sweep), and whether more are on their way.
const spares = new Map<string, { ready: string[]; filling: boolean }>();

/**
 * A temp file in `dir` created ahead on the thread pool, or undefined when none is ready
 * (the caller creates one as before). Creating a file is the dear part of a replacement
 * where many files come and go (ext4 looks for an inode that was not freed recently, reading
 * inode blocks): made ahead, a replacement only opens, writes and renames on the caller's
 * thread. The same work, off the event loop; the temp files left at exit are removed then.
 */
function takeSpareTemp(dir: string): string | undefined {
  let pool = spares.get(dir);
  if (!pool) {
    if (!exitHooked) process.once('exit', removeSpareTemps);
    exitHooked = true;
    sweepStaleTemps(dir); // spares of a writer that died
    pool = { ready: [], filling: false };
    spares.set(dir, pool);
  }
  const temp = pool.ready.pop();
  if (pool.ready.length < SPARES_PER_FOLDER / 2 && !pool.filling) fillSpares(dir, pool);
  return temp;
}
let exitHooked = false;

/** Removes the spares of a folder after a write could not use one (the folder was removed). */
function forgetSpares(dir: string): void {
  const pool = spares.get(dir);
  spares.delete(dir);
  for (const temp of pool?.ready.splice(0) ?? []) unlinkQuietly(temp);
}

function fillSpares(dir: string, pool: { ready: string[]; filling: boolean }): void {
  pool.filling = true;
  let pending = SPARES_PER_FOLDER - pool.ready.length;
  for (let i = SPARES_PER_FOLDER - pool.ready.length; i > 0; i--) {
    const temp = join(dir, `.spare.${process.pid}.${++sequence}.tmp`);
    openCallback(temp, TEMP_FLAGS, 0o600, (error, fd) => {
      if (!error) {
        closeSync(fd);
        // a pool forgotten or removed meanwhile takes no more
        if (spares.get(dir) === pool) pool.ready.push(temp);
        else unlinkQuietly(temp);
      }
      if (--pending === 0) pool.filling = false;
    });
  }
}

/** Removes the spare temp files this process made ahead (at exit; exported for its test). */
export function removeSpareTemps(): void {
  for (const dir of [...spares.keys()]) forgetSpares(dir);
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
