import { createHash } from 'node:crypto';
import {
  createReadStream,
  lstatSync,
  readdirSync,
  readFileSync,
  type Stats,
  statSync,
} from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Snapshot } from '@switchyard/store-fs';
import ignore from 'ignore';

/** Folders never walked: version-control data, dependencies, caches and the dispatcher's own. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.tox',
  '.cache',
  '.turbo',
  '.next',
]);

/** Options of {@link takeSnapshot}. */
export interface SnapshotOptions {
  /** Earlier snapshots of the same root, the first that has a path answering for it: a file
   * whose size, mtime and inode are unchanged keeps its hash, so only changed files are read.
   * (Looked up in each, never merged: copying a large workspace's entries cost more than
   * the walk's own work.) */
  previous?: Snapshot | readonly (Snapshot | undefined)[];
  /** Further paths to leave out: true for a workspace-relative path (a folder's ends in `/`)
   * that is not part of the workspace's content (e.g. `agent-task/`, what `.gitignore` names). */
  skip?: (path: string) => boolean;
  /** The folder listings of earlier walks of the same root ({@link folderListings}): a folder
   * whose inode and change time are those of its kept listing is not listed again. */
  listings?: FolderListings;
  /** The wall clock the settled rule of `listings` reads (Date.now; tests move it on). */
  clock?: () => number;
}

/**
 * Folder listings kept between walks of one root, by workspace-relative folder path. A
 * folder's change time moves whenever an entry is added, removed or renamed in it (and no
 * process can set it back, unlike its mtime), so a folder with the same inode and change time
 * still has the names it had. Only listings whose change time had settled when they were read
 * are kept (see {@link SETTLED_MS}).
 */
export type FolderListings = Map<string, { ino: number; ctimeMs: number; names: string[] }>;

/** An empty {@link FolderListings}, for a caller that walks the same root again and again. */
export function folderListings(): FolderListings {
  return new Map();
}

// Entries looked at between two yields to the event loop: a few milliseconds of work.
const ENTRIES_PER_TURN = 512;
// Files up to this size are hashed in one read on this thread; larger ones are streamed.
const READ_WHOLE_BYTES = 1 << 20;
// The kernel stamps change times from its coarse clock, up to a tick behind the wall clock:
// a folder changed again within that tick of its listing could keep the same change time.
// A listing is kept only when the folder's change time is older than the walk's start by more
// than this, so any later change gives it a newer one (git's "racy" rule, with room to spare).
const SETTLED_MS = 1000;

/**
 * A snapshot of every regular file and symbolic link under `root` (folders in
 * {@link SKIPPED_DIRS} and what `skip` says left out): size, mtime and inode of each, and its
 * content hash — read only where those differ from `previous`. Folders are listed (unless
 * `listings` has their names, unchanged) and files lstat'ed synchronously (a tenth of the CPU
 * of one thread-pool round trip per file), yielding to the event loop every
 * {@link ENTRIES_PER_TURN} entries, so the agents of other tasks are still watched while a
 * large workspace is walked.
 */
export async function takeSnapshot(root: string, options: SnapshotOptions = {}): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  // Each earlier snapshot once: attempts closing their rounds together often pass the same one.
  const earlier = [
    ...new Set(Array.isArray(options.previous) ? options.previous : [options.previous]),
  ].filter((e): e is Snapshot => e !== undefined);
  const seenBefore = (path: string) => {
    for (const e of earlier) if (Object.hasOwn(e, path)) return e[path];
    return undefined;
  };
  const { listings, skip } = options;
  const settledBefore = (options.clock ?? Date.now)() - SETTLED_MS;
  const namesOf = (dir: string, rel: string, folder: Stats): string[] | undefined => {
    const kept = listings?.get(rel);
    if (kept && kept.ino === folder.ino && kept.ctimeMs === folder.ctimeMs) return kept.names;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      listings?.delete(rel);
      return undefined; // removed meanwhile, or unreadable: nothing of it to compare
    }
    if (listings && folder.ctimeMs < settledBefore)
      listings.set(rel, { ino: folder.ino, ctimeMs: folder.ctimeMs, names });
    else listings?.delete(rel);
    return names;
  };
  let sinceYield = 0;
  const walk = async (dir: string, rel: string, folder: Stats): Promise<void> => {
    const names = namesOf(dir, rel, folder);
    if (!names) return;
    for (const name of names) {
      if (++sinceYield >= ENTRIES_PER_TURN) {
        sinceYield = 0;
        await new Promise<void>((done) => setImmediate(done));
      }
      const path = rel === '' ? name : `${rel}/${name}`;
      const full = `${dir}/${name}`;
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (!SKIPPED_DIRS.has(name) && !skip?.(`${path}/`)) await walk(full, path, stat);
        continue;
      }
      if ((!stat.isFile() && !stat.isSymbolicLink()) || skip?.(path)) continue;
      const seen = seenBefore(path);
      // A chmod moves neither mtime nor size: the mode is compared on its own, without a read.
      const mode = stat.mode & 0o7777;
      if (
        seen &&
        seen.size === stat.size &&
        seen.mtimeMs === stat.mtimeMs &&
        seen.ino === stat.ino
      ) {
        // The same content: its entry (never changed in place) is kept, or copied with the mode.
        snapshot[path] = seen.mode === mode ? seen : { ...seen, mode };
        continue;
      }
      const sha256 = await contentHash(full, stat.isSymbolicLink(), stat.size);
      if (sha256 === undefined) continue;
      snapshot[path] = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, mode, sha256 };
    }
  };
  const top = resolve(root);
  const stat = statSync(top, { throwIfNoEntry: false });
  if (stat?.isDirectory()) await walk(top === '/' ? '' : top, '', stat);
  return snapshot;
}

/** Paths added, removed, or changed in content or permission bits between two snapshots, sorted. */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  // Each path once, without a set of both snapshots' paths (a whole workspace's, twice).
  const paths: string[] = [];
  for (const p of Object.keys(after)) if (changed(before[p], after[p])) paths.push(p);
  for (const p of Object.keys(before))
    if (!Object.hasOwn(after, p) && changed(before[p], after[p])) paths.push(p);
  return paths.sort();
}

/** Another content, or other permission bits (when both snapshots recorded them). */
function changed(
  before: Snapshot[string] | undefined,
  after: Snapshot[string] | undefined,
): boolean {
  if (before?.sha256 !== after?.sha256) return true;
  return before?.mode !== undefined && after?.mode !== undefined && before.mode !== after.mode;
}

/**
 * What the workspace's root `.gitignore` ignores (git's own rules, through the `ignore`
 * package): generated output of the project's tools, which a shared workspace's gates write
 * while agents run, and which a worktree's diff leaves out as well. Always false without one.
 */
export async function gitignoreOf(root: string): Promise<(path: string) => boolean> {
  const file = join(root, '.gitignore');
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) return () => false;
  // The rules (and the answers they gave, which `ignore` keeps per path) last while the file
  // is unchanged: every snapshot of a shared workspace asks, two per writing attempt.
  const key = `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
  const cached = gitignores.get(root);
  if (cached?.key === key) return cached.ignored;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return () => false;
  }
  const rules = ignore().add(text);
  const ignored = (path: string) => rules.ignores(path);
  gitignores.set(root, { key, ignored });
  return ignored;
}

const gitignores = new Map<string, { key: string; ignored: (path: string) => boolean }>();

async function contentHash(path: string, link: boolean, size: number): Promise<string | undefined> {
  try {
    if (link)
      return createHash('sha256')
        .update(await readlink(path))
        .digest('hex');
    const hash = createHash('sha256');
    if (size <= READ_WHOLE_BYTES) return hash.update(readFileSync(path)).digest('hex');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch {
    return undefined; // removed or unreadable meanwhile
  }
}
