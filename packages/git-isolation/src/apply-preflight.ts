import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ApplyResult,
  SwitchyardError,
  type TaskId,
  type WorktreeRecord,
  type WriteSetReport,
} from '@switchyard/core';
import { git } from './git.js';
import {
  currentBranch,
  type Repository,
  resolveCommit,
  toRepoPath,
  toWorkspacePath,
} from './repository.js';
import { dirtySourceFiles } from './source-tree.js';

/** The source checkout is ready for the apply: its branch's tip and the task's files. */
export interface ReadySource {
  tip: string;
  /** The task's changed files, repository-relative. */
  taskFiles: string[];
}

/** The apply waits for the source checkout; it is tried again later. */
export const waitingApply = (
  taskId: TaskId,
  message: string,
  files: string[] = [],
): ApplyResult => ({
  status: 'waiting',
  taskId,
  files,
  message,
});

/**
 * Whether the source checkout can take the task now: git not busy, the record's source branch
 * checked out, and none of the task's files with the user's uncommitted work. Reads only.
 */
export async function checkSourceReady(
  repo: Repository,
  taskId: TaskId,
  record: WorktreeRecord,
  report: WriteSetReport,
): Promise<ReadySource | ApplyResult> {
  if (existsSync(join(repo.gitDir, 'index.lock')))
    return waitingApply(
      taskId,
      'waiting: git is busy in the source checkout (.git/index.lock exists)',
    );
  const taskFiles = report.changed.map((f) => toRepoPath(repo, f));
  // The source checkout's branch and tip (one rev-parse) and the user's uncommitted work on
  // the task's files, read side by side; nothing is written before both are known.
  const [source, dirty] = await Promise.all([
    sourceState(repo, record.sourceBranch),
    dirtySourceFiles(repo, taskFiles),
  ]);
  if (source.head !== record.sourceBranch)
    return waitingApply(
      taskId,
      `waiting: the source checkout is on ${source.head ?? 'a detached HEAD'}, not ${record.sourceBranch}`,
    );
  if (dirty.length > 0) {
    const files = dirty.map((f) => toWorkspacePath(repo, f));
    return waitingApply(taskId, `waiting: dirty source overlaps ${files.join(', ')}`, files);
  }
  if (!source.tip)
    throw new SwitchyardError('SY_GIT', `branch ${record.sourceBranch} is gone`, {
      file: repo.root,
    });
  return { tip: source.tip, taskFiles };
}

/** The branch the source checkout has checked out, and the tip of `branch`. */
async function sourceState(
  repo: Repository,
  branch: string,
): Promise<{ head: string | undefined; tip: string | undefined }> {
  const probe = await git(
    repo.root,
    ['rev-parse', `refs/heads/${branch}^{commit}`, '--symbolic-full-name', 'HEAD'],
    { allow: [128] },
  );
  const [tip, head] = probe.stdout.split('\n');
  if (probe.exitCode === 0 && tip && head?.startsWith('refs/heads/'))
    return { head: head.slice('refs/heads/'.length), tip };
  // A detached HEAD or a missing branch: asked one at a time, so each answer is exact.
  return {
    head: await currentBranch(repo),
    tip: await resolveCommit(repo.root, `refs/heads/${branch}`),
  };
}
