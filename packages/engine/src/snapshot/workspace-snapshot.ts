import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot } from '@switchyard/core';
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
}

// Entries looked at between two yields to the event loop: a few milliseconds of work.
const ENTRIES_PER_TURN = 512;
// Files up to this size are hashed in one read on this thread; larger ones are streamed.
const READ_WHOLE_BYTES = 1 << 20;

/**
 * A snapshot of every regular file and symbolic link under `root` (folders in
 * {@link SKIPPED_DIRS} and what `skip` says left out): size, mtime and inode of each, and its
 * content hash — read only where those differ from `previous`. Folders are listed and files
 * lstat'ed synchronously (a tenth of the CPU of one thread-pool round trip per file), yielding
 * to the event loop every {@link ENTRIES_PER_TURN} entries, so the agents of other tasks are
 * still watched while a large workspace is walked.
 */
export async function takeSnapshot(root: string, options: SnapshotOptions = {}): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  const earlier = (Array.isArray(options.previous) ? options.previous : [options.previous]).filter(
    (e): e is Snapshot => e !== undefined,
  );
  const seenBefore = (path: string) => {
    for (const e of earlier) if (Object.hasOwn(e, path)) return e[path];
    return undefined;
  };
  let sinceYield = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // removed meanwhile, or unreadable: nothing of it to compare
    }
    for (const name of names.sort()) {
      if (++sinceYield >= ENTRIES_PER_TURN) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const path = rel === '' ? name : `${rel}/${name}`;
      const full = join(dir, name);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (!SKIPPED_DIRS.has(name) && !options.skip?.(`${path}/`)) await walk(full, path);
        continue;
      }
      if ((!stat.isFile() && !stat.isSymbolicLink()) || options.skip?.(path)) continue;
      const seen = seenBefore(path);
      const same =
        seen && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs && seen.ino === stat.ino;
      const sha256 = same ? seen.sha256 : await contentHash(full, stat.isSymbolicLink(), stat.size);
      if (sha256 === undefined) continue;
      snapshot[path] = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, sha256 };
    }
  };
  await walk(root, '');
  return snapshot;
}

/** Paths added, removed or changed in content between two snapshots, sorted. */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((p) => before[p]?.sha256 !== after[p]?.sha256).sort();
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
