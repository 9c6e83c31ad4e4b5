import { lstat, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * Of the changed files (repository-relative) in `worktree`, the symbolic links whose target
 * lies outside the worktree (an absolute target, or `..` past its root), is the worktree's
 * root itself (a loop) or is inside a `.git` folder, and the regular files with more than one
 * hard link. Git would commit such a symbolic link as it is, and the source checkout would then
 * hold a link out of the repository that the next reader follows; a hard link would carry
 * another file's content (a file outside the worktree) into the commit.
 */
export async function escapingLinks(worktree: string, files: readonly string[]): Promise<string[]> {
  const escaping: string[] = [];
  for (const file of files) {
    const path = join(worktree, file);
    const stats = await lstat(path).catch(() => undefined);
    // A hard link shares its bytes with another name, maybe outside the worktree (git would
    // commit that file's content, and a later write through either name changes both).
    if (stats?.isFile() && stats.nlink > 1) {
      escaping.push(file);
      continue;
    }
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
