import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Repository } from './repository.js';

/**
 * `$XDG_CACHE_HOME/switchyard/worktrees` (`~/.cache/…` when unset or not absolute, as the
 * XDG spec says): task worktrees live outside the repository, where the project's own tools
 * (test runners, linters, watchers that walk every folder) never see them.
 */
export function defaultWorktreesRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const cache = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache');
  return join(cache, 'switchyard', 'worktrees');
}

/**
 * The folder name of one workspace of one clone under the worktrees root: the repository's
 * folder name (readable) and a hash of its git directory's real path and the workspace's
 * place in it. Stable for a clone (the same on every run), different for two clones of the
 * same remote and for two workspaces of one repository.
 */
export function repositoryId(repo: Pick<Repository, 'root' | 'commonDir' | 'prefix'>): string {
  const name =
    basename(repo.root)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '') || 'repo';
  const hash = createHash('sha256').update(`${repo.commonDir}\0${repo.prefix}`).digest('hex');
  return `${name.slice(0, 40)}-${hash.slice(0, 12)}`;
}

/** True when `path` is `dir` or inside it. */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
