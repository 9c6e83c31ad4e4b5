import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClaimConflict, ClaimPort, ClaimRecord, ClaimResult, TaskId } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';
import { replaceFile } from '@switchyard/utils';
import { acquireFileMutex, type FileMutexOptions } from './file-mutex.js';

/**
 * Persistent write-set claims of one workspace, shared by every process that opens the same
 * state directory. Each mutation runs under a cross-process file mutex and replaces
 * `claims.json` atomically (write + fsync + rename), so a crash never leaves a half claim.
 */
export interface ClaimStore extends ClaimPort {
  /** `<stateDir>/claims`. */
  readonly dir: string;
}

interface ClaimsFile {
  schema_version: 1;
  tasks: Record<TaskId, { paths: string[]; since: string }>;
}

/** One queued change of the claims document: applied in memory, settled once it is durable. */
interface Mutation<T> {
  apply: (file: ClaimsFile, index: Map<string, TaskId>) => { result: T; changed: boolean };
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

interface Loaded {
  key: string;
  file: ClaimsFile;
  index: Map<string, TaskId>;
}

/** File name of the claims document inside `<stateDir>/claims/`. */
export const CLAIMS_FILE = 'claims.json';

/** Options of {@link openClaimStore}. */
export interface ClaimStoreOptions extends FileMutexOptions {
  /**
   * True when the opener holds the workspace lock: every other writer of the claims (a
   * dispatcher, `resolve --done`) takes that lock first, so this process's mutations only
   * take turns among themselves, without the cross-process file mutex (whose lock file costs
   * a new file and two removals per mutation).
   */
  exclusive?: boolean;
}

/**
 * Opens the claim store under a dispatcher state directory. Its folder is created by the
 * first change, so a store only read (a dry run, a report) leaves the workspace as it was.
 */
export async function openClaimStore(
  stateDir: string,
  options: ClaimStoreOptions = {},
): Promise<ClaimStore> {
  const dir = join(stateDir, 'claims');
  let madeDir = false;
  const dataPath = join(dir, CLAIMS_FILE);
  const lockPath = join(dir, 'claims.lock');
  let cache: Loaded | undefined;

  // Re-read only when the file changed (rename gives a new inode; times and size as backup).
  const load = (): Loaded => {
    const key = fileKey(dataPath);
    if (cache && cache.key === key) return cache;
    const file = key === 'absent' ? emptyFile() : parse(readFileSync(dataPath, 'utf8'), dataPath);
    const index = new Map<string, TaskId>();
    for (const [taskId, claim] of Object.entries(file.tasks))
      for (const p of claim.paths) index.set(p, taskId);
    cache = { key, file, index };
    return cache;
  };
  const save = async (file: ClaimsFile) => {
    // the cached document now holds an unsaved change: readers meanwhile see the file
    cache = undefined;
    // fsynced (other processes and a restart after a power loss rely on it), in the thread
    // pool: the mutex stays held, the event loop does not wait
    await replaceFile(dataPath, `${JSON.stringify(file)}\n`, { durable: true });
  };
  // Mutations of this process take turns here first, so only other processes ever wait on
  // the file mutex (whose retry sleeps would otherwise delay them too). Those that queue while
  // a save is under way (the claims of one admission pass, an archive's release) are applied
  // in order to one document and saved together: a group commit. Each settles only once the
  // save that carries it is durable, so a crash keeps a prefix of the queue, as one save per
  // mutation would; a failed save (or a change that throws) fails every mutation it carried,
  // and the next batch runs all the same.
  let queue: Mutation<unknown>[] = [];
  let draining = false;
  const drain = async () => {
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        await commit(batch);
      }
    } finally {
      draining = false;
    }
  };
  // Never rejects: what goes wrong settles the batch's mutations instead.
  const commit = async (batch: readonly Mutation<unknown>[]) => {
    let release: (() => void) | undefined;
    try {
      if (!madeDir) mkdirSync(dir, { recursive: true, mode: 0o700 }); // owner-only, like all state
      madeDir = true;
      release = options.exclusive ? undefined : await acquireFileMutex(lockPath, options);
      const { file, index } = load();
      const done = batch.map((mutation) => ({ mutation, ...mutation.apply(file, index) }));
      if (done.some((d) => d.changed)) await save(file);
      for (const d of done) d.mutation.resolve(d.result);
    } catch (error) {
      cache = undefined; // the cached document may hold an unsaved change
      for (const mutation of batch) mutation.reject(error); // a settled one ignores it
    } finally {
      try {
        release?.();
      } catch {
        // The batch is durable and settled: its claims hold, and failing their callers would
        // have them believe otherwise (a task "refused" while claims.json names it, a release
        // retried that is done). A lock file left behind names this live process, so other
        // processes (and this one's next batch) time out on it with SY_LOCK_HELD and its hint:
        // the fault surfaces there, without stopping this queue.
      }
    }
  };
  const mutate = <T>(apply: Mutation<T>['apply']): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ apply, resolve, reject } as Mutation<unknown>);
      if (draining) return;
      draining = true;
      // The mutations asked for in this turn's microtasks go in the first save too.
      queueMicrotask(() => void drain());
    });

  return {
    dir,
    tryClaim: (taskId, paths) =>
      mutate((file, index) => {
        const { result, changed } = claimIn(file, index, taskId, paths);
        if (changed && result.ok) for (const p of result.paths) index.set(p, taskId);
        return { result, changed };
      }),
    release: (taskId) =>
      mutate((file, index) => {
        const current = file.tasks[taskId];
        if (!current) return { result: [], changed: false };
        delete file.tasks[taskId];
        for (const p of current.paths) if (index.get(p) === taskId) index.delete(p);
        return { result: current.paths, changed: true };
      }),
    holderOf: async (path) => load().index.get(path),
    list: async () =>
      Object.entries(load().file.tasks)
        .map(([taskId, c]) => ({ taskId, paths: [...c.paths], since: c.since }))
        .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0)),
    snapshot: async () => new Map(load().index),
  };
}

/** The claims file's identity: a rename gives a new inode; times and size as backup. */
function fileKey(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}:${s.size}`;
  } catch {
    return 'absent'; // no claims yet
  }
}

/**
 * Claims `paths` for the task in the document: refused with every path another task holds,
 * else the task's paths grow by those it lacked (its first claim records when it started).
 */
function claimIn(
  file: ClaimsFile,
  index: Map<string, TaskId>,
  taskId: TaskId,
  paths: readonly string[],
): { result: ClaimResult; changed: boolean } {
  const wanted = [...new Set(paths)];
  const conflicts: ClaimConflict[] = [];
  for (const path of wanted) {
    const holder = index.get(path);
    if (holder !== undefined && holder !== taskId) conflicts.push({ path, holder });
  }
  if (conflicts.length > 0) return { result: { ok: false, conflicts }, changed: false };
  const current = file.tasks[taskId];
  const added = wanted.filter((p) => index.get(p) !== taskId);
  const all = [...(current?.paths ?? []), ...added].sort();
  const changed = current === undefined || added.length > 0;
  if (changed)
    file.tasks[taskId] = { paths: all, since: current?.since ?? new Date().toISOString() };
  return { result: { ok: true, paths: all }, changed };
}

function emptyFile(): ClaimsFile {
  return { schema_version: 1, tasks: {} };
}

function parse(text: string, path: string): ClaimsFile {
  try {
    const value = JSON.parse(text) as ClaimsFile;
    if (value?.schema_version !== 1 || typeof value.tasks !== 'object' || value.tasks === null)
      throw new Error('unexpected shape');
    for (const claim of Object.values(value.tasks))
      if (!Array.isArray(claim.paths)) throw new Error('a claim without paths');
    return value;
  } catch (error) {
    throw new SwitchyardError(
      'SY_STATE_CORRUPT',
      `claim store ${path} cannot be read: ${(error as Error).message}`,
      {
        file: path,
        cause: error,
        hint: 'stop every dispatcher of this workspace, then repair the JSON or restore it from a backup',
      },
    );
  }
}

/** Reads the claims of a state directory without creating anything (for dry runs). */
export function readClaims(stateDir: string): ClaimRecord[] {
  const path = join(stateDir, 'claims', CLAIMS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return Object.entries(parse(text, path).tasks)
    .map(([taskId, c]) => ({ taskId, paths: [...c.paths], since: c.since }))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : 1));
}
