import { readdir, rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IsolationLayout } from './layout.js';
import { isInside } from './worktrees-location.js';

const removeIfEmpty = (dir: string) =>
  rmdir(dir).then(
    () => true,
    () => false,
  );

/**
 * After the worktree at `path` went: its group folder goes too when empty, and so does the
 * worktrees folder (a repository's folder in the cache, when its last worktree is gone; the
 * nested folder of an earlier version, once only its `.gitignore` is left: nothing is put
 * there any more). Only empty folders are removed (`rmdir`), so a worktree being created
 * meanwhile is never touched.
 */
export async function removeEmptyParents(layout: IsolationLayout, path: string): Promise<void> {
  const root = [layout.worktreesDir, layout.legacyWorktreesDir].find(
    (r) => isInside(r, path) && r !== path,
  );
  if (!root) return;
  for (let dir = dirname(path); dir !== root && isInside(root, dir); dir = dirname(dir))
    if (!(await removeIfEmpty(dir))) return;
  if (root === layout.legacyWorktreesDir) {
    const left = await readdir(root).catch(() => undefined);
    if (left?.every((name) => name === '.gitignore'))
      await rm(root, { recursive: true, force: true });
  } else await removeIfEmpty(root);
}
