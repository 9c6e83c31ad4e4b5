import { constants } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git, nulList } from './git.js';
import { type Repository, toRepoPath } from './repository.js';

/** What {@link copyIgnoredFiles} did: files copied, and files it would not copy (with why). */
export interface CopyReport {
  copied: string[];
  skipped: string[];
}

/**
 * Copies the workspace's files matching `patterns` (config `isolation.copy`: `.env`,
 * `config/local.*`) into a new worktree's workdir, workspace-relative. Only files git ignores
 * are copied: a tracked file is in the worktree already, and an untracked one that is not
 * ignored would show up in the task's diff and be committed. Each copy is a reflink where
 * the file system has them (`COPYFILE_FICLONE` falls back to a plain copy elsewhere).
 */
export async function copyIgnoredFiles(
  repo: Repository,
  workdir: string,
  patterns: readonly string[],
): Promise<CopyReport> {
  if (patterns.length === 0) return { copied: [], skipped: [] };
  // Loaded here: only a worktree with `isolation.copy` patterns needs the glob library.
  const { glob } = await import('tinyglobby');
  const files = (
    await glob([...patterns], {
      cwd: repo.workspace,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      ignore: ['**/.git/**'],
    })
  ).sort();
  if (files.length === 0) return { copied: [], skipped: [] };
  const ignored = new Set(await ignoredAmong(repo, files));
  const copied: string[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    if (!ignored.has(file)) {
      skipped.push(`${file}: not ignored by git (tracked, or it would be committed)`);
      continue;
    }
    const target = join(workdir, file);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await copyFile(join(repo.workspace, file), target, constants.COPYFILE_FICLONE);
    copied.push(file);
  }
  return { copied, skipped };
}

/** The workspace-relative `files` git ignores (tracked files never count as ignored). */
async function ignoredAmong(repo: Repository, files: readonly string[]): Promise<string[]> {
  const byRepoPath = new Map(files.map((f) => [toRepoPath(repo, f), f]));
  // check-ignore takes no pathspec magic: GIT_LITERAL_PATHSPECS (set for every other command) off.
  const out = await git(repo.root, ['check-ignore', '-z', '--stdin'], {
    allow: [1],
    env: { GIT_LITERAL_PATHSPECS: '0' },
    input: `${[...byRepoPath.keys()].join('\0')}\0`,
  });
  return nulList(out)
    .map((p) => byRepoPath.get(p))
    .filter((f): f is string => f !== undefined);
}
