import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type TaskState, taskStateSchema } from '@switchyard/core';
import { RACY_MS } from './follow.js';

interface Cached<T> {
  key: string;
  /** When it was read: an entry is trusted only for files older than that by {@link RACY_MS}. */
  readAt: number;
  mtimeMs: number;
  value: T;
}

/**
 * Every task's persisted state (`<stateDir>/tasks/<group>/<task>.json`). The dispatcher
 * replaces these files atomically (a rename into the group folder), so a group folder whose
 * identity (inode, mtime) did not change holds the same files as last time and is skipped
 * without a stat per file; inside a changed folder only files whose identity changed are
 * parsed again. An identity is trusted only once it is older than the file system's time
 * granularity ({@link RACY_MS}), so two writes in one clock tick are never mistaken for one.
 */
export class StateFiles {
  private readonly files = new Map<string, Cached<TaskState>>();
  private readonly groups = new Map<string, Cached<TaskState[]>>();

  constructor(private readonly stateDir: string) {}

  read(now = Date.now()): TaskState[] {
    const root = join(this.stateDir, 'tasks');
    const seenGroups = new Set<string>();
    const states: TaskState[] = [];
    for (const group of list(root).sort()) {
      const dir = join(root, group);
      seenGroups.add(dir);
      states.push(...this.readGroup(dir, now));
    }
    for (const dir of this.groups.keys()) {
      if (seenGroups.has(dir)) continue;
      this.groups.delete(dir);
      for (const file of this.files.keys()) if (file.startsWith(`${dir}/`)) this.files.delete(file);
    }
    return states;
  }

  private readGroup(dir: string, now: number): TaskState[] {
    let key: string;
    let mtimeMs: number;
    try {
      const s = statSync(dir);
      key = `${s.ino}:${s.mtimeMs}`;
      mtimeMs = s.mtimeMs;
    } catch {
      return [];
    }
    const hit = this.groups.get(dir);
    if (hit && trusted(hit, key)) return hit.value;
    const seen = new Set<string>();
    const states: TaskState[] = [];
    for (const name of list(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = join(dir, name);
      seen.add(file);
      const state = this.load(file, now);
      if (state) states.push(state);
    }
    for (const file of this.files.keys())
      if (file.startsWith(`${dir}/`) && !seen.has(file)) this.files.delete(file);
    this.groups.set(dir, { key, readAt: now, mtimeMs, value: states });
    return states;
  }

  private load(file: string, now: number): TaskState | undefined {
    let key: string;
    let mtimeMs: number;
    try {
      const s = statSync(file);
      key = `${s.ino}:${s.size}:${s.mtimeMs}`;
      mtimeMs = s.mtimeMs;
    } catch {
      return undefined; // removed meanwhile
    }
    const hit = this.files.get(file);
    if (hit && trusted(hit, key)) return hit.value;
    try {
      const state = taskStateSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      this.files.set(file, { key, readAt: now, mtimeMs, value: state });
      return state;
    } catch {
      // unreadable: the last good parse stands (status names the corrupt file)
      return hit?.value;
    }
  }
}

/** Same identity, and that identity was already old when it was read (not racily clean). */
function trusted(hit: Cached<unknown>, key: string): boolean {
  return hit.key === key && hit.mtimeMs < hit.readAt - RACY_MS;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
