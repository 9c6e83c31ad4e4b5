import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { archivedTaskDir, planFileName, taskDir } from '@switchyard/core';
import type { SharedStore } from './shared-backlog.js';

/** What `publishTasks` stores with each task: its group and plan files. */
interface PublishedPayload {
  plans?: { loop: number; text: string }[];
}

/**
 * `switchyard worker`: the backlog's open tasks (not archived nor blocked) that this clone has
 * no folder of get one, written from the plans their publisher stored, so the dispatcher runs
 * them like tasks of its own. Returns the open tasks with their status (`g/a:waiting`).
 */
export async function materializeBacklog(
  workspace: string,
  shared: SharedStore,
): Promise<Set<string>> {
  const pg = await shared.store.backlog();
  const open = new Set<string>();
  for (const entry of await pg.list()) {
    if (entry.status === 'archived' || entry.status === 'blocked') continue;
    open.add(`${entry.task}:${entry.status}`);
    // A task id from the database names a folder: <group>/<task>, nothing that climbs out.
    if (!/^[\w][\w.-]*\/[\w][\w.-]*$/.test(entry.task) || entry.task.includes('..')) continue;
    const dir = taskDir(workspace, entry.task);
    if (existsSync(dir) || existsSync(archivedTaskDir(workspace, entry.task))) continue;
    const plans = (entry.payload as PublishedPayload | null)?.plans ?? [];
    if (plans.length === 0) continue;
    for (const plan of plans) {
      const file = join(dir, planFileName(plan.loop));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, plan.text);
    }
  }
  return open;
}
