import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ApplyRequest, WorktreeRecord } from '@switchyard/core';
import { firstLine, git, nulList, pathspecInput } from './git.js';
import type { Repository } from './repository.js';

/** The commit message: the plan's title, then the Switchyard trailers. */
export function commitMessage(
  request: Pick<ApplyRequest, 'taskId' | 'title' | 'targets' | 'attempts'>,
): string {
  const subject = request.title.replace(/\s+/g, ' ').trim() || `switchyard: ${request.taskId}`;
  return [
    subject,
    '',
    `Switchyard-Task: ${request.taskId}`,
    `Switchyard-Targets: ${request.targets.join(', ') || 'none'}`,
    `Switchyard-Attempts: ${request.attempts}`,
    '',
  ].join('\n');
}

/**
 * The worktree's whole state (commits the agent made, staged, unstaged and new files) as
 * one commit on top of the base. Agent commits are squashed: the source branch gets exactly
 * one commit per task. The task branch is moved to it together with the source branch (one
 * ref transaction, see `advanceSource`), so nothing outside the object database changes here.
 *
 * `files` (repository-relative) are the worktree's changes against the base, as `inspect`
 * found them. The tree is built in a scratch index seeded from the base, so git reads only
 * those files: `git add -A` in the worktree's own index would stat every file of the checkout
 * (most of a one-file apply's time on a large repository). The result is the same tree: the
 * base plus exactly the working tree's version of every changed file.
 */
export async function commitWorktree(
  record: WorktreeRecord,
  message: string,
  files: readonly string[],
  scratchIndex: string,
): Promise<string> {
  const env = { GIT_INDEX_FILE: scratchIndex };
  await mkdir(dirname(scratchIndex), { recursive: true });
  try {
    await git(record.path, ['read-tree', record.baseCommit], { env });
    if (files.length > 0)
      await git(record.path, ['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        env,
        input: pathspecInput(files),
      });
    const tree = firstLine(await git(record.path, ['write-tree'], { env }));
    return firstLine(
      await git(record.path, ['commit-tree', tree, '-p', record.baseCommit, '-F', '-'], {
        input: message,
      }),
    );
  } finally {
    await rm(scratchIndex, { force: true });
  }
}

/** The task's commit replayed onto the source tip, or the files that conflict. */
export type Replay = { commit: string; files: string[] } | { conflict: string[]; why: string };

/**
 * Replays `taskCommit` (whose parent is `base`) onto `tip` as a cherry-pick would, but in
 * the object database only (`git merge-tree --write-tree`): no work tree or index is
 * touched, so a conflict can never leave a half-applied tree. The result has `tip` as its
 * only parent: the source history stays linear, one commit per task.
 */
export async function replayOnto(
  repo: Repository,
  base: string,
  taskCommit: string,
  tip: string,
  message: string,
  taskFiles: readonly string[],
): Promise<Replay> {
  // On the tip it started from, the task's commit lands as it is, changing exactly its files.
  if (tip === base) return { commit: taskCommit, files: [...taskFiles] };
  const contains = await git(repo.root, ['merge-base', '--is-ancestor', base, tip], {
    allow: [1],
  });
  if (contains.exitCode !== 0)
    return {
      conflict: [],
      why: 'the source branch no longer contains the commit the task started from',
    };
  // merge-base(tip, taskCommit) is `base` here, so this three-way merge is the cherry-pick.
  const merged = await git(
    repo.root,
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', tip, taskCommit],
    { allow: [1] },
  );
  const [tree = '', ...conflicted] = nulList(merged);
  if (merged.exitCode === 1)
    return {
      conflict: [...new Set(conflicted)].sort(),
      why: 'the source changed the same files',
    };
  const commit = firstLine(
    await git(repo.root, ['commit-tree', tree, '-p', tip, '-F', '-'], { input: message }),
  );
  const files = nulList(
    await git(repo.root, ['diff', '--name-only', '-z', '--no-renames', tip, commit, '--']),
  );
  return { commit, files };
}
