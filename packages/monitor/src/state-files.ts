import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type TaskState, taskStateSchema } from '@switchyard/core';

/**
 * Every task's persisted state (`<stateDir>/tasks/<group>/<task>.json`), parsing again only
 * the files whose identity (inode, size, mtime) changed since the last {@link read}: with a
 * thousand tasks a snapshot costs a thousand stat calls, not a thousand parses. The
 * dispatcher replaces these files atomically, so a file is never seen half written.
 */
export class StateFiles {
  private readonly cache = new Map<string, { key: string; state: TaskState }>();

  constructor(private readonly stateDir: string) {}

  read(): TaskState[] {
    const root = join(this.stateDir, 'tasks');
    const seen = new Set<string>();
    const states: TaskState[] = [];
    for (const group of list(root).sort()) {
      for (const name of list(join(root, group)).sort()) {
        if (!name.endsWith('.json')) continue;
        const file = join(root, group, name);
        seen.add(file);
        const state = this.load(file);
        if (state) states.push(state);
      }
    }
    for (const file of this.cache.keys()) if (!seen.has(file)) this.cache.delete(file);
    return states;
  }

  private load(file: string): TaskState | undefined {
    let key: string;
    try {
      const s = statSync(file);
      key = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return undefined; // removed meanwhile
    }
    const hit = this.cache.get(file);
    if (hit?.key === key) return hit.state;
    try {
      const state = taskStateSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      this.cache.set(file, { key, state });
      return state;
    } catch {
      // unreadable: the last good parse stands (status names the corrupt file)
      return hit?.state;
    }
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
