import { realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorktreeRecord, WriteSetReport } from '@switchyard/core';
import { escapingLinks } from './escaping-links.js';
import { firstLine, git, nulList, pathspecInput } from './git.js';
import { metadataChanges, metadataFingerprint } from './git-metadata.js';
import { type Repository, toRepoPath, toWorkspacePath } from './repository.js';

/** A worktree's changes against its base, repository-relative, split by kind. */
export interface WorktreeChanges {
  /** Changed, added or deleted files (repository-relative), sorted. */
  files: string[];
  /** Why the worktree's git metadata is not to be trusted (empty when it is). */
  gitMetadata: string[];
}

const touchesGitMetadata = (file: string): boolean =>
  file.endsWith('/') || file.split('/').some((segment) => segment.toLowerCase() === '.git');

const READ_ONLY = ['--no-optional-locks', '-c', 'core.fsmonitor=false'];

/**
 * Everything the task changed in its worktree relative to the recorded base: the working
 * tree against the base commit (so commits made inside the worktree count as changes, and
 * so does anything not yet committed) plus untracked files that are not ignored.
 */
export async function worktreeChanges(
  repo: Repository,
  record: WorktreeRecord,
): Promise<WorktreeChanges> {
  const cwd = record.path;
  // The metadata check comes first: a planted `core.fsmonitor`, filter or hook must be found
  // before any git command reads the worktree. The two reads then run side by side; they write
  // nothing and start no helper (no optional lock, no fsmonitor).
  const gitMetadata = await metadataProblems(repo, record);
  if (gitMetadata.length > 0) return { files: [], gitMetadata };
  const [diffed, listed] = await Promise.allSettled([
    git(cwd, [...READ_ONLY, 'diff', '--name-only', '-z', '--no-renames', record.baseCommit, '--']),
    git(cwd, [...READ_ONLY, 'ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const tracked = nulList(settled(diffed));
  const untracked = nulList(settled(listed));
  const files = [...new Set([...tracked, ...untracked])].sort();
  for (const file of files)
    if (touchesGitMetadata(file))
      gitMetadata.push(file.endsWith('/') ? `${file} (a nested git repository)` : file);
  return { files: files.filter((f) => !touchesGitMetadata(f)), gitMetadata };
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** The worktree must still be the one git made: its own top level, this repository, the task branch, history kept. */
async function metadataProblems(repo: Repository, record: WorktreeRecord): Promise<string[]> {
  const probe = await git(
    record.path,
    [
      'rev-parse',
      '--show-toplevel',
      '--path-format=absolute',
      '--git-common-dir',
      'HEAD',
      '--symbolic-full-name',
      'HEAD',
    ],
    { allow: [128] },
  );
  const [top, common, headCommit, head] = probe.stdout.split('\n');
  if (probe.exitCode !== 0 || !top || (await realpath(top)) !== (await realpath(record.path)))
    return ['.git (the worktree link was changed)'];
  if (!common || (await realpath(common)) !== (await realpath(repo.commonDir)))
    return ['.git (the worktree points at another repository)'];
  if (head !== `refs/heads/${record.branch}`)
    return [`HEAD (moved from ${record.branch} to ${head || 'a detached commit'})`];
  const changed = await metadataChangedSince(repo, record);
  if (changed.length > 0) return changed;
  if (headCommit === record.baseCommit) return [];
  const kept = await git(record.path, ['merge-base', '--is-ancestor', record.baseCommit, 'HEAD'], {
    allow: [1],
  });
  if (kept.exitCode !== 0) return ['HEAD (the history before the base commit was rewritten)'];
  return [];
}

/**
 * Config, hooks and `info/` changed since the worktree was created (see ./git-metadata.ts).
 * Checked before any git command reads the worktree's index, so a planted `core.fsmonitor`
 * or filter never runs in a check.
 */
async function metadataChangedSince(repo: Repository, record: WorktreeRecord): Promise<string[]> {
  if (!record.metadata) return [];
  const gitDir = firstLine(
    await git(record.path, ['rev-parse', '--path-format=absolute', '--git-dir']),
  );
  return metadataChanges(record.metadata, await metadataFingerprint(repo, gitDir));
}

/** Checks a worktree against the task's write set (workspace-relative paths). */
export async function inspectWorktree(
  repo: Repository,
  record: WorktreeRecord,
  writeSet: readonly string[],
): Promise<WriteSetReport> {
  const { files, gitMetadata } = await worktreeChanges(repo, record);
  const declared = new Set(writeSet);
  const changed = files.map((f) => toWorkspacePath(repo, f));
  const outside = changed.filter((f) => !declared.has(f));
  if (gitMetadata.length > 0) return { changed, outside, gitMetadata, empty: false };
  const links = (await escapingLinks(record.path, files)).map((f) => toWorkspacePath(repo, f));
  const ignored = await ignoredByGit(
    record.path,
    writeSet.map((f) => toRepoPath(repo, f)),
  );
  return {
    changed,
    outside,
    gitMetadata,
    ...(links.length > 0 ? { escapingLinks: links } : {}),
    ...(ignored.length > 0 ? { ignored: ignored.map((f) => toWorkspacePath(repo, f)) } : {}),
    empty: changed.length === 0 && gitMetadata.length === 0,
  };
}

/**
 * Of `files` (repository-relative), those git ignores in `cwd` and does not track: a change
 * to them never shows in the worktree's diff, so it could never reach the source.
 */
async function ignoredByGit(cwd: string, files: readonly string[]): Promise<string[]> {
  if (files.length === 0) return [];
  // check-ignore takes paths (never globs) and refuses the literal-pathspec switch.
  const out = await git(cwd, ['check-ignore', '-z', '--stdin'], {
    input: pathspecInput(files),
    allow: [1],
    env: { GIT_LITERAL_PATHSPECS: '0' },
  });
  return nulList(out).sort();
}

/**
 * `writeSet: "revert-outside"`: resets every file outside the write set to its base
 * content (tracked ones via git, new untracked ones deleted). Returns the files reverted
 * (workspace-relative). Git metadata problems are not repaired here; they refuse the apply.
 */
export async function revertOutside(
  repo: Repository,
  record: WorktreeRecord,
  writeSet: readonly string[],
): Promise<string[]> {
  const report = await inspectWorktree(repo, record, writeSet);
  if (report.outside.length === 0) return [];
  const files = report.outside.map((f) => toRepoPath(repo, f));
  const known = await knownTo(record.path, files, record.baseCommit);
  const tracked = files.filter((f) => known.has(f));
  if (tracked.length > 0)
    await git(
      record.path,
      [
        'restore',
        `--source=${record.baseCommit}`,
        '--staged',
        '--worktree',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ],
      { input: pathspecInput(tracked) },
    );
  for (const file of files.filter((f) => !known.has(f)))
    await rm(join(record.path, file), { force: true, recursive: true });
  return report.outside;
}

/** Of `files`, those in `commit`'s tree or in the index of `cwd` (what `git restore` can name). */
export async function knownTo(
  cwd: string,
  files: readonly string[],
  commit: string,
): Promise<Set<string>> {
  if (files.length === 0) return new Set();
  const inTree = nulList(
    await git(cwd, ['ls-tree', '-r', '--name-only', '-z', commit, '--', ...files]),
  );
  const inIndex = nulList(await git(cwd, ['ls-files', '-z', '--', ...files]));
  return new Set([...inTree, ...inIndex]);
}
