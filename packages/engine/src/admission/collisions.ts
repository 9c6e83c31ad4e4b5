import type { TaskId } from '@switchyard/core';
import type { AdmissionTask } from './admit.js';

/** A path listed in the write sets of several tasks: those tasks never run at the same time. */
export interface WriteSetCollision {
  path: string;
  /** The tasks, sorted by id. */
  tasks: TaskId[];
}

/** Every path shared by two or more write sets, sorted by path. Linear in total paths. */
export function writeSetCollisions(tasks: readonly AdmissionTask[]): WriteSetCollision[] {
  const byPath = new Map<string, TaskId[]>();
  for (const task of tasks) {
    for (const path of new Set(task.writeSet)) {
      const list = byPath.get(path);
      if (list) list.push(task.id);
      else byPath.set(path, [task.id]);
    }
  }
  const out: WriteSetCollision[] = [];
  for (const [path, ids] of byPath) if (ids.length > 1) out.push({ path, tasks: ids.sort() });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
