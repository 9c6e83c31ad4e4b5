import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { TaskState } from '@switchyard/core';
import { execa } from 'execa';

/** Longest diff a page gets (the rest is cut with a note: the repository has it whole). */
export const MAX_DIFF_BYTES = 2 * 1024 * 1024;
/** Most untracked files of a worktree shown as new files. */
const MAX_NEW_FILES = 50;

/** What a task changed, as a unified diff, and where it was read from. */
export interface TaskDiff {
  /** `commit <sha>`, `patch <file>`, `worktree <path>` or `workspace (shared)`. */
  source: string;
  text: string;
  truncated: boolean;
}

/**
 * The diff of what a task changed: its commit once applied (`isolation.sourceCommit`), its
 * kept patch under `apply: patch`, its worktree against the commit it started from (new
 * files included) while it works, or — without worktree isolation — the shared checkout's
 * changes to the task's write set. Read-only git commands, argv only, no pager, no colour.
 */
export async function taskDiff(
  workspace: string,
  state: TaskState | undefined,
  writeSet: readonly string[],
): Promise<TaskDiff> {
  const iso = state?.isolation;
  if (iso?.sourceCommit) {
    const text = await git(workspace, [
      'show',
      '--no-color',
      '--no-ext-diff',
      '--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n    %s%n',
      '--patch',
      '--stat',
      iso.sourceCommit,
    ]);
    return cut(`commit ${iso.sourceCommit.slice(0, 12)}`, text);
  }
  if (iso?.patchFile) {
    const file = isAbsolute(iso.patchFile) ? iso.patchFile : join(workspace, iso.patchFile);
    return cut(`patch ${iso.patchFile}`, existsSync(file) ? readFileSync(file, 'utf8') : '');
  }
  if (iso?.path && existsSync(iso.path)) {
    const tracked = await git(iso.path, ['diff', '--no-color', '--no-ext-diff', iso.baseCommit]);
    const untracked = (await git(iso.path, ['ls-files', '--others', '--exclude-standard', '-z']))
      .split('\0')
      .filter(Boolean)
      .slice(0, MAX_NEW_FILES);
    const added: string[] = [];
    for (const file of untracked)
      added.push(
        await git(iso.path, ['diff', '--no-color', '--no-index', '--', '/dev/null', file]),
      );
    return cut(`worktree ${iso.path}`, [tracked, ...added].filter(Boolean).join('\n'));
  }
  if (writeSet.length === 0) return { source: 'workspace (shared)', text: '', truncated: false };
  const text = await git(workspace, [
    'diff',
    '--no-color',
    '--no-ext-diff',
    'HEAD',
    '--',
    ...writeSet,
  ]);
  return cut('workspace (shared): its write set against HEAD', text);
}

/** Runs one read-only git command; its stdout (git diff --no-index exits 1 on a difference). */
async function git(cwd: string, args: string[]): Promise<string> {
  const result = await execa('git', ['-c', 'core.quotepath=off', ...args], {
    cwd,
    reject: false,
    stdin: 'ignore',
    maxBuffer: MAX_DIFF_BYTES * 2,
    env: { GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' },
  });
  return typeof result.stdout === 'string' ? result.stdout : '';
}

function cut(source: string, text: string): TaskDiff {
  if (Buffer.byteLength(text) <= MAX_DIFF_BYTES) return { source, text, truncated: false };
  return { source, text: text.slice(0, MAX_DIFF_BYTES), truncated: true };
}
