import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { archivedTaskDir } from '@switchyard/core';
import { writeOwnedFileBelow } from '@switchyard/utils';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** An archive is carried between machines as text; beyond these it is left on its machine. */
const MAX_FILE_BYTES = 512 * 1024;
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

/**
 * The text files of a task's archive folder (plans, reviews, `complete.log`, notes) as the
 * backlog keeps them for the other machines: relative path → content. Files past the size
 * limits, binary files and links are left out (they stay on the machine that archived it).
 */
export function readArchiveFiles(ctx: DispatchContext, id: string): Record<string, string> {
  const root = archivedTaskDir(ctx.workspace, id);
  const files: Record<string, string> = {};
  let total = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (
        stat.isFile() &&
        stat.size <= MAX_FILE_BYTES &&
        total + stat.size <= MAX_TOTAL_BYTES
      ) {
        const bytes = readFileSync(path);
        if (bytes.includes(0)) continue;
        total += stat.size;
        files[relative(root, path)] = bytes.toString('utf8');
      }
    }
  };
  walk(root);
  return files;
}

/**
 * Another machine archived the task: its archive folder is written into this workspace's
 * `agent-task/archive/<group>/<task>/` and the task's active folder here is removed, so the
 * workspace reads as if this machine had archived it. Nothing happens when the archive came
 * without files, or when this workspace has an archive of the task already.
 */
export function materializeArchive(
  ctx: DispatchContext,
  rt: TaskRuntime,
  files: Record<string, string> | undefined,
): void {
  const target = archivedTaskDir(ctx.workspace, rt.id);
  if (!files || Object.keys(files).length === 0 || existsSync(target)) return;
  for (const [name, text] of Object.entries(files)) {
    const path = resolve(target, name);
    // A path from the database never leaves the task's archive folder.
    if (!path.startsWith(`${target}${sep}`)) continue;
    writeOwnedFileBelow(ctx.workspace, path, text, 'replace');
  }
  const active = rt.files?.dir ?? rt.task.dir;
  if (active && existsSync(active) && !lstatSync(active).isSymbolicLink())
    rmSync(active, { recursive: true, force: true });
}
