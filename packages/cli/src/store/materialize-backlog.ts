import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
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
  const entries = await pg.list();
  const needed = new Set(
    entries
      .filter((e) => e.status !== 'archived' && e.status !== 'blocked')
      .flatMap((e) => e.dependsOn),
  );
  for (const entry of entries) {
    // An archived dependency of an open task is written as an archive: the open task's plan
    // names it, and a plan naming a task this clone does not know is invalid.
    if (entry.status === 'archived' && needed.has(entry.task) && safeId(entry.task))
      writeArchive(workspace, entry.task, entry.archive);
    if (entry.status === 'archived' || entry.status === 'blocked') continue;
    open.add(`${entry.task}:${entry.status}`);
    if (!safeId(entry.task)) continue;
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

/** A task id from the database names a folder: <group>/<task>, nothing that climbs out. */
const safeId = (task: string): boolean =>
  /^[\w][\w.-]*\/[\w][\w.-]*$/.test(task) && !task.includes('..');

/** The archive another machine left in the backlog, unless this clone has the task already. */
function writeArchive(workspace: string, task: string, files?: Record<string, string>): void {
  const target = archivedTaskDir(workspace, task);
  if (!files || existsSync(target) || existsSync(taskDir(workspace, task))) return;
  for (const [name, text] of Object.entries(files)) {
    const path = resolve(target, name);
    if (!path.startsWith(`${target}${sep}`)) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}
