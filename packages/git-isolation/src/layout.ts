import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDir as defaultStateDir, SwitchyardError, type TaskId } from '@switchyard/core';
import type { Repository } from './repository.js';

/** Where isolation keeps its records, journals, worktrees and the apply lock. */
export interface IsolationLayout {
  /** The dispatcher's state directory (task states under `tasks/`). */
  stateDir: string;
  /** `<state>/isolation/worktrees/<group>/<task>.json`: one record per task worktree. */
  recordsDir: string;
  /** `<state>/isolation/apply/<group>/<task>.json`: the journal of an apply in progress. */
  journalsDir: string;
  /** `<state>/isolation/metadata/<id>/`: git config, hooks and `info/` as fingerprinted. */
  metadataDir: string;
  /** `<state>/worktrees/<group>/<task>/`: the worktrees themselves. */
  worktreesDir: string;
  /** In the repository's common git dir: one apply at a time per repository. */
  lockFile: string;
}

/** Where a workspace keeps isolation state; defaults under `agent-task/.switchyard`. */
export interface LayoutOptions {
  stateDir?: string;
  /** Root of the task worktrees (default `<stateDir>/worktrees`). */
  worktreesDir?: string;
}

/** The layout for a repository's workspace. */
export function layoutOf(repo: Repository, options: LayoutOptions = {}): IsolationLayout {
  const state = options.stateDir ?? defaultStateDir(repo.workspace);
  return {
    stateDir: state,
    recordsDir: join(state, 'isolation', 'worktrees'),
    journalsDir: join(state, 'isolation', 'apply'),
    metadataDir: join(state, 'isolation', 'metadata'),
    worktreesDir: options.worktreesDir ?? join(state, 'worktrees'),
    lockFile: join(repo.commonDir, 'switchyard-apply.lock'),
  };
}

/**
 * Creates the folders, each with a `.gitignore` of `*`: the source repository never sees
 * worktrees or records as untracked files (the dispatcher's scans skip `.switchyard` already).
 */
export async function ensureLayout(layout: IsolationLayout): Promise<void> {
  for (const dir of [join(layout.recordsDir, '..'), layout.worktreesDir]) {
    const ignore = join(dir, '.gitignore');
    if (existsSync(ignore)) continue;
    await mkdir(dir, { recursive: true });
    await writeFile(ignore, '*\n', { flag: 'w' });
  }
}

const splitTaskId = (taskId: TaskId): [string, string] => {
  const [group, task, ...rest] = taskId.split('/');
  if (!group || !task || rest.length > 0 || group.startsWith('.') || task.startsWith('.'))
    throw new SwitchyardError('SY_INTERNAL', `not a task id: ${JSON.stringify(taskId)}`, {
      hint: 'task ids are <group>/<task>',
    });
  return [group, task];
};

export const recordFile = (layout: IsolationLayout, taskId: TaskId): string =>
  `${join(layout.recordsDir, ...splitTaskId(taskId))}.json`;

export const journalFile = (layout: IsolationLayout, taskId: TaskId): string =>
  `${join(layout.journalsDir, ...splitTaskId(taskId))}.json`;

export const worktreePath = (layout: IsolationLayout, taskId: TaskId): string =>
  join(layout.worktreesDir, ...splitTaskId(taskId));

/** `switchyard/<group>/<task>`. */
export const branchOf = (taskId: TaskId): string => `switchyard/${splitTaskId(taskId).join('/')}`;
