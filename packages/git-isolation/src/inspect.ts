import { realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorktreeRecord, WriteSetReport } from '@switchyard/core';
import { escapingLinks } from './escaping-links.js';
import { firstLine, git, nulList, pathspecInput } from './git.js';
import { metadataChanges, metadataFingerprint } from './git-metadata.js';
import type { IsolationContext } from './isolation-context.js';
import { restoreMetadata } from './metadata-restore.js';
import { toRepoPath, toWorkspacePath } from './repository.js';

/** A worktree's changes against its base, repository-relative, split by kind. */
export interface WorktreeChanges {
  /** Changed, added or deleted files (repository-relative), sorted. */
  files: string[];
  /** Why the worktree's git metadata is not to be trusted (empty when it is). */
  gitMetadata: string[];
  /** Of `gitMetadata`, the config, hook and `info/` entries put back as they were. */
  restored: string[];
  /** Commits on the task branch since its base that the dispatcher did not make. */
  agentCommits: string[];
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
  ctx: IsolationContext,
  record: WorktreeRecord,
): Promise<WorktreeChanges> {
  const cwd = record.path;
  // The metadata check comes first: a planted `core.fsmonitor`, filter or hook must be found
  // (and undone) before any git command reads the worktree. The two reads then run side by
  // side; they write nothing and start no helper (no optional lock, no fsmonitor).
  const checked = await metadataProblems(ctx, record);
  const gitMetadata = checked.problems;
  if (gitMetadata.length > 0)
    return { files: [], gitMetadata, restored: checked.restored, agentCommits: [] };
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
  return {
    files: files.filter((f) => !touchesGitMetadata(f)),
    gitMetadata,
    restored: [],
    agentCommits: checked.moved ? await agentCommits(record) : [],
  };
}

/**
 * Commits on the task branch since its base that are not the dispatcher's own (an apply whose
 * source check failed leaves its commit, trailer `Switchyard-Task: <task>`, on the branch):
 * `<short id> <subject>`, oldest first. The apply squashes them into the task's one commit.
 */
async function agentCommits(record: WorktreeRecord): Promise<string[]> {
  const out = await git(record.path, [
    ...READ_ONLY,
    'log',
    '--reverse',
    '--format=%H%x1f%s%x1f%(trailers:key=Switchyard-Task,valueonly,separator=%x2C)%x1e',
    `${record.baseCommit}..HEAD`,
  ]);
  return out.stdout
    .split('\x1e')
    .map((entry) => entry.replace(/^\n/, '').split('\x1f'))
    .filter(([sha, , task]) => sha && task?.trim() !== record.taskId)
    .map(([sha = '', subject = '']) => `${sha.slice(0, 12)} ${subject}`);
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** What the metadata check found: problems (none when the worktree can be trusted). */
interface MetadataCheck {
  problems: string[];
  /** Config, hook and `info/` entries put back to the fingerprint. */
  restored: string[];
  /** HEAD has moved from the base (commits on the task branch). */
  moved: boolean;
}

/** The worktree must still be the one git made: its own top level, this repository, the task branch, history kept. */
async function metadataProblems(
  ctx: IsolationContext,
  record: WorktreeRecord,
): Promise<MetadataCheck> {
  const { repo } = ctx;
  const refuse = (problem: string): MetadataCheck => ({
    problems: [problem],
    restored: [],
    moved: false,
  });
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
    return refuse('.git (the worktree link was changed)');
  if (!common || (await realpath(common)) !== (await realpath(repo.commonDir)))
    return refuse('.git (the worktree points at another repository)');
  if (head !== `refs/heads/${record.branch}`)
    return refuse(`HEAD (moved from ${record.branch} to ${head || 'a detached commit'})`);
  const changed = await metadataChangedSince(ctx, record);
  if (changed.problems.length > 0) return { ...changed, moved: false };
  if (headCommit === record.baseCommit) return { problems: [], restored: [], moved: false };
  const kept = await git(record.path, ['merge-base', '--is-ancestor', record.baseCommit, 'HEAD'], {
    allow: [1],
  });
  if (kept.exitCode !== 0) return refuse('HEAD (the history before the base commit was rewritten)');
  return { problems: [], restored: [], moved: true };
}

/**
 * Config, hooks and `info/` changed since the worktree was created (see ./git-metadata.ts),
 * put back as they were (./metadata-restore.ts): the refusal never leaves an agent's
 * `core.hooksPath` or hook in the user's repository. Checked before any git command reads the
 * worktree's index, so a planted `core.fsmonitor` or filter never runs in a check.
 */
async function metadataChangedSince(
  ctx: IsolationContext,
  record: WorktreeRecord,
): Promise<{ problems: string[]; restored: string[] }> {
  if (!record.metadata) return { problems: [], restored: [] };
  const gitDir = firstLine(
    await git(record.path, ['rev-parse', '--path-format=absolute', '--git-dir']),
  );
  const problems = metadataChanges(record.metadata, await metadataFingerprint(ctx.repo, gitDir));
  if (problems.length === 0) return { problems, restored: [] };
  const { restored } = await restoreMetadata(
    ctx.repo,
    ctx.layout.metadataDir,
    record.metadata,
    gitDir,
  );
  const undone = new Set(restored);
  return {
    problems,
    restored: problems.filter((p) => undone.has(p.replace(/ \((?:added|removed|changed)\)$/, ''))),
  };
}

/** Checks a worktree against the task's write set (workspace-relative paths). */
export async function inspectWorktree(
  ctx: IsolationContext,
  record: WorktreeRecord,
  writeSet: readonly string[],
): Promise<WriteSetReport> {
  const { repo } = ctx;
  const { files, gitMetadata, restored, agentCommits } = await worktreeChanges(ctx, record);
  const declared = new Set(writeSet);
  const changed = files.map((f) => toWorkspacePath(repo, f));
  const outside = changed.filter((f) => !declared.has(f));
  if (gitMetadata.length > 0)
    return {
      changed,
      outside,
      gitMetadata,
      ...(restored.length > 0 ? { gitMetadataRestored: restored } : {}),
      empty: false,
    };
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
    ...(agentCommits.length > 0 ? { agentCommits } : {}),
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
  ctx: IsolationContext,
  record: WorktreeRecord,
  writeSet: readonly string[],
): Promise<string[]> {
  const { repo } = ctx;
  const report = await inspectWorktree(ctx, record, writeSet);
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
