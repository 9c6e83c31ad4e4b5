import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskState, TaskStateChanges, TaskStateCursor, Versioned } from '@switchyard/core';

/**
 * Time within which two changes of one file may carry the same mtime: the kernel stamps files
 * with a coarse clock (a few ms on Linux, up to 2 s on some file systems).
 */
const RACY_MS = 2000;

/** A file or folder as last seen: its identity, when it was looked at, and its mtime. */
interface Seen {
  key: string;
  readAt: number;
  mtimeMs: number;
}

interface FileSeen extends Seen {
  /** A digest of the record as read: a re-read of the same content is no change. */
  stamp: string;
}

/** A task group folder as last seen, with its task files (reused whole while unchanged). */
interface GroupSeen extends Seen {
  files: ReadonlyMap<string, FileSeen>;
}

/** The file store's cursor: every group folder and its task files as last seen. */
type FsCursor = ReadonlyMap<string, GroupSeen>;

/**
 * `TaskStatePort.changes` of the file store, by stat calls. Task states are replaced
 * atomically (a rename into the group folder), so a group folder whose identity (inode,
 * mtime) did not change holds the same files as last time and is skipped without a stat per
 * file; inside a changed folder only files whose identity changed are read again. An identity
 * is trusted only once it is older than the file system's time granularity, so two writes in
 * one clock tick are never mistaken for one.
 */
export function fsTaskChanges(
  tasksDir: string,
  read: (file: string) => Versioned<TaskState> | undefined,
  since: TaskStateCursor | undefined,
  now = Date.now(),
): TaskStateChanges {
  const before = (since as unknown as FsCursor | undefined) ?? new Map<string, GroupSeen>();
  const after = new Map<string, GroupSeen>();
  const changed: Versioned<TaskState>[] = [];
  const removed: string[] = [];
  for (const group of listDir(tasksDir).sort()) {
    const dir = join(tasksDir, group);
    const seen = identity(dir, false, now);
    if (!seen) continue;
    const last = before.get(group);
    if (last && trusted(last, seen.key)) {
      after.set(group, last);
      continue;
    }
    const lastFiles = last?.files ?? new Map<string, FileSeen>();
    const files = new Map<string, FileSeen>();
    let torn = false;
    for (const name of listDir(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const task = `${group}/${name.slice(0, -'.json'.length)}`;
      const file = join(dir, name);
      const stat = identity(file, true, now);
      if (!stat) continue; // removed meanwhile
      const was = lastFiles.get(task);
      if (was && trusted(was, stat.key)) {
        files.set(task, was);
        continue;
      }
      let entry: Versioned<TaskState> | undefined;
      try {
        entry = read(file);
      } catch {
        entry = undefined;
      }
      if (!entry) {
        // unreadable now (torn by a hand edit): reported once it reads
        if (was) files.set(task, was);
        torn = true;
        continue;
      }
      const stamp = createHash('sha1')
        .update(`${entry.version}:${JSON.stringify(entry.value)}`)
        .digest('base64');
      files.set(task, { ...stat, stamp });
      if (was?.key !== stat.key || was.stamp !== stamp) changed.push(entry);
    }
    for (const task of lastFiles.keys()) if (!files.has(task)) removed.push(task);
    // a group with a torn file is listed again next time (readAt 0: never trusted)
    after.set(group, { ...seen, ...(torn ? { readAt: 0 } : {}), files });
  }
  for (const [group, last] of before)
    if (!after.has(group)) for (const task of last.files.keys()) removed.push(task);
  return { changed, removed: removed.sort(), cursor: after as unknown as TaskStateCursor };
}

function identity(path: string, withSize: boolean, now: number): Seen | undefined {
  try {
    const s = statSync(path);
    const key = withSize ? `${s.ino}:${s.size}:${s.mtimeMs}` : `${s.ino}:${s.mtimeMs}`;
    return { key, readAt: now, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

/** Same identity, and that identity was already old when it was seen (not racily clean). */
function trusted(seen: Seen, key: string): boolean {
  return seen.key === key && seen.mtimeMs < seen.readAt - RACY_MS;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
