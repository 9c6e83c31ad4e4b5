import { lstat, readlink, rm } from 'node:fs/promises';
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
 * is touched, so the user's own uncommitted changes on other files stay as they are. Nor is
 * a file of the task whose content is neither `from`'s nor `to`'s: the user changed it after
 * the apply moved it (while the check ran). Its work-tree content stays, an uncommitted
 * change against `to`; only its index entry goes back. Returns those files.
 * Idempotent: running it again after a crash finishes the job.
 */
export async function moveSourceBack(
  repo: Repository,
  branch: string,
  from: string,
  to: string,
  files: readonly string[],
  reason: string,
): Promise<string[]> {
  const kept = await changedSinceApply(repo, from, to, files);
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
  const keep = new Set(kept);
  const undone = files.filter((f) => !keep.has(f));
  await syncFiles(repo, to, undone, await knownTo(repo.root, undone, to));
  await syncFiles(repo, to, kept, await knownTo(repo.root, kept, to), 'index only');
  return kept;
}

/**
 * Of `files`, those whose work-tree content (or absence) is neither `from`'s nor `to`'s:
 * changed in the source checkout since the apply brought them to `from`.
 */
async function changedSinceApply(
  repo: Repository,
  from: string,
  to: string,
  files: readonly string[],
): Promise<string[]> {
  if (files.length === 0) return [];
  const [atFrom, atTo, onDisk] = await Promise.all([
    blobsAt(repo, from, files),
    blobsAt(repo, to, files),
    workTreeBlobs(repo, files),
  ]);
  return files.filter((f) => {
    const now = onDisk.get(f);
    return now !== atFrom.get(f) && now !== atTo.get(f);
  });
}

/** The blob id of each of `files` in `commit` (absent ones are left out). */
async function blobsAt(
  repo: Repository,
  commit: string,
  files: readonly string[],
): Promise<Map<string, string>> {
  const out = await git(repo.root, ['ls-tree', '-r', '-z', commit, '--', ...files]);
  const blobs = new Map<string, string>();
  for (const entry of nulList(out)) {
    const tab = entry.indexOf('\t');
    const oid = entry.slice(0, tab).split(' ')[2];
    if (oid) blobs.set(entry.slice(tab + 1), oid);
  }
  return blobs;
}

/**
 * The blob id each of `files` would have if added now (clean filters applied, as `git add`
 * does; a symbolic link's target), absent ones left out. Anything else at the path (a
 * folder) gets an id no commit has.
 */
async function workTreeBlobs(
  repo: Repository,
  files: readonly string[],
): Promise<Map<string, string>> {
  const blobs = new Map<string, string>();
  const regular: string[] = [];
  for (const file of files) {
    const stat = await lstat(join(repo.root, file)).catch(() => undefined);
    if (!stat) continue;
    if (stat.isSymbolicLink()) {
      const target = await readlink(join(repo.root, file));
      blobs.set(
        file,
        firstLine(await git(repo.root, ['hash-object', '--stdin'], { input: target })),
      );
    } else if (stat.isFile() && !file.includes('\n')) regular.push(file);
    else if (stat.isFile())
      blobs.set(file, firstLine(await git(repo.root, ['hash-object', '--', file])));
    else blobs.set(file, `not a file: ${stat.mode}`);
  }
  if (regular.length > 0) {
    const ids = (
      await git(repo.root, ['hash-object', '--stdin-paths'], { input: `${regular.join('\n')}\n` })
    ).stdout.split('\n');
    for (const [i, file] of regular.entries()) blobs.set(file, ids[i] ?? '');
  }
  return blobs;
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

/** Index and work tree of `files` = `commit`'s content (a file not in `commit` is removed);
 * with 'index only', their index entries alone. */
async function syncFiles(
  repo: Repository,
  commit: string,
  files: readonly string[],
  known: Set<string>,
  scope: 'index and work tree' | 'index only' = 'index and work tree',
): Promise<void> {
  const named = files.filter((f) => known.has(f));
  if (named.length > 0)
    await git(
      repo.root,
      [
        'restore',
        `--source=${commit}`,
        '--staged',
        ...(scope === 'index only' ? [] : ['--worktree']),
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
