import { lstat, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * Of the changed files (repository-relative) in `worktree`, the symbolic links whose target
 * lies outside the worktree (an absolute target, or `..` past its root), is the worktree's
 * root itself (a loop) or is inside a `.git` folder. Git would commit such a link as it is, and the source checkout would then hold
 * a link out of the repository that the next reader follows.
 */
export async function escapingLinks(worktree: string, files: readonly string[]): Promise<string[]> {
  const escaping: string[] = [];
  for (const file of files) {
    const path = join(worktree, file);
    const stats = await lstat(path).catch(() => undefined);
    if (!stats?.isSymbolicLink()) continue;
    const target = await readlink(path);
    const inside = relative(worktree, resolve(dirname(path), target));
    const escapes =
      isAbsolute(target) ||
      inside === '' ||
      inside === '..' ||
      inside.startsWith('../') ||
      isAbsolute(inside) ||
      inside.split('/').some((segment) => segment.toLowerCase() === '.git');
    if (escapes) escaping.push(file);
  }
  return escaping;
}
