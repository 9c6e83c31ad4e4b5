import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { firstLine, git, nulList, pathspecInput } from './git.js';
import { knownTo } from './inspect.js';
import { pausePoint } from './pause.js';
import { type Repository, resolveCommit } from './repository.js';

/**
 * Rollback: moves the source branch from `from` (the task's commit) back to `to` (the tip
 * the apply started from) with a compare-and-swap, and brings the index and work tree of
 * exactly `files` (repository-relative) to `to`'s content. Nothing else in the source tree
 * is touched, so the user's own uncommitted changes on other files stay as they are.
 * Idempotent: running it again after a crash finishes the job.
 */
export async function moveSourceBack(
  repo: Repository,
  branch: string,
  from: string,
  to: string,
  files: readonly string[],
  reason: string,
): Promise<void> {
  const ref = `refs/heads/${branch}`;
  const at = await resolveCommit(repo.root, ref);
  if (at === from) await git(repo.root, ['update-ref', '-m', reason, ref, to, from]);
  else if (at !== to)
    throw new SwitchyardError(
      'SY_GIT',
      `branch ${branch} is at ${at ?? 'nothing'}, expected ${from} or ${to}`,
      {
        file: repo.root,
        hint: `someone committed on ${branch} meanwhile; undo switchyard's commit by hand (git revert ${from})`,
      },
    );
  await pausePoint('rollback:ref');
  // After a crash some files may be in neither tree nor index yet: name only those git knows.
  await syncFiles(repo, to, files, await knownTo(repo.root, files, to));
}

/**
 * The forward move of an apply: the branch compare-and-swapped from `from` to `to` (false
 * when it moved meanwhile: then nothing was touched), then `files` brought to `to`. Each of
 * them is in `to`'s tree or in the index (at `from`, which the dirty check found clean), so
 * git knows every one of them. `also` (the task branch and its commit) moves in the same
 * ref transaction: both or neither.
 */
export async function advanceSource(
  repo: Repository,
  branch: string,
  from: string,
  to: string,
  files: readonly string[],
  reason: string,
  also?: { branch: string; commit: string },
): Promise<boolean> {
  const updates = [`update refs/heads/${branch}\0${to}\0${from}\0`];
  if (also) updates.push(`update refs/heads/${also.branch}\0${also.commit}\0\0`);
  const swapped = await git(repo.root, ['update-ref', '-m', reason, '--stdin', '-z'], {
    input: updates.join(''),
    allow: [128],
  });
  if (swapped.exitCode !== 0) return false;
  await pausePoint('advance:ref');
  await syncFiles(repo, to, files, new Set(files));
  return true;
}

/** Index and work tree of `files` = `commit`'s content (a file not in `commit` is removed). */
async function syncFiles(
  repo: Repository,
  commit: string,
  files: readonly string[],
  known: Set<string>,
): Promise<void> {
  const named = files.filter((f) => known.has(f));
  if (named.length > 0)
    await git(
      repo.root,
      [
        'restore',
        `--source=${commit}`,
        '--staged',
        '--worktree',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ],
      {
        input: pathspecInput(named),
      },
    );
}

/**
 * Files left on disk, untracked, by a `git restore` killed after writing them and before
 * writing the index: removed only when their content is exactly `commit`'s (so it is ours).
 */
export async function removeStrays(
  repo: Repository,
  commit: string,
  files: readonly string[],
): Promise<void> {
  const untracked = new Set(
    nulList(await git(repo.root, ['ls-files', '--others', '-z', '--', ...files])),
  );
  for (const file of files) {
    if (!untracked.has(file)) continue;
    const blob = await git(repo.root, ['rev-parse', '-q', '--verify', `${commit}:${file}`], {
      allow: [1, 128],
    });
    if (blob.exitCode !== 0) continue;
    const hash = await git(repo.root, ['hash-object', '--', file]);
    if (firstLine(hash) === firstLine(blob)) await rm(join(repo.root, file), { force: true });
  }
}

/**
 * The user's uncommitted work on `files` in the source checkout: modified, staged,
 * untracked or ignored files at those paths. Apply waits while there is any.
 */
export async function dirtySourceFiles(
  repo: Repository,
  files: readonly string[],
): Promise<string[]> {
  if (files.length === 0) return [];
  const status = await git(repo.root, [
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--ignored=matching',
    '--no-renames',
    '--',
    ...files,
  ]);
  return nulList(status)
    .map((entry) => entry.slice(3))
    .filter((f) => f !== '')
    .sort();
}
