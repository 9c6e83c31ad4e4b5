import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stateDir as defaultStateDir, SwitchyardError, type TaskId } from '@switchyard/core';
import type { Repository } from './repository.js';
import { defaultWorktreesRoot, isInside, repositoryId } from './worktrees-location.js';

/**
 * Where isolation keeps its local files: the worktrees, the git metadata snapshots, an apply's
 * scratch index and the apply lock. Worktree records and apply journals are the store's (the
 * isolation port); these are files of this machine's repository, as the worktrees themselves.
 */
export interface IsolationLayout {
  /** `<state>/isolation`: the file store keeps records and journals under it too. */
  isolationDir: string;
  /** `<state>/isolation/metadata/<id>/`: git config, hooks and `info/` as fingerprinted. */
  metadataDir: string;
  /** `<root>/<repository id>/<group>/<task>/`: the worktrees themselves. */
  worktreesDir: string;
  /** `<state>/worktrees`: where earlier versions put them (moved out on their next use). */
  legacyWorktreesDir: string;
  /** In the repository's common git dir: one apply at a time per repository. */
  lockFile: string;
}

/** Where a workspace keeps isolation state; defaults under `agent-task/.switchyard`. */
export interface LayoutOptions {
  stateDir?: string;
  /**
   * The folder of this workspace's task worktrees (`<group>/<task>` inside it). Default
   * `<dir>/<repository id>`.
   */
  worktreesDir?: string;
  /**
   * The folder holding every repository's worktrees (config `isolation.dir`; relative to the
   * workspace). Default `$XDG_CACHE_HOME/switchyard/worktrees`.
   */
  dir?: string;
  /** Environment to read `XDG_CACHE_HOME` and `HOME` from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** The layout for a repository's workspace. */
export function layoutOf(repo: Repository, options: LayoutOptions = {}): IsolationLayout {
  const state = options.stateDir ?? defaultStateDir(repo.workspace);
  return {
    isolationDir: join(state, 'isolation'),
    metadataDir: join(state, 'isolation', 'metadata'),
    worktreesDir:
      options.worktreesDir ??
      join(
        options.dir ? resolve(repo.workspace, options.dir) : defaultWorktreesRoot(options.env),
        repositoryId(repo),
      ),
    legacyWorktreesDir: join(state, 'worktrees'),
    lockFile: join(repo.commonDir, 'switchyard-apply.lock'),
  };
}

/**
 * Creates the folders. Those inside the repository get a `.gitignore` of `*`: the source
 * repository never sees worktrees or records as untracked files (the dispatcher's scans
 * skip `.switchyard` already).
 */
export async function ensureLayout(layout: IsolationLayout, repo: Repository): Promise<void> {
  await mkdir(layout.worktreesDir, { recursive: true, mode: 0o700 });
  const inRepository = [layout.isolationDir, layout.worktreesDir].filter((dir) =>
    isInside(repo.root, dir),
  );
  for (const dir of inRepository) {
    const ignore = join(dir, '.gitignore');
    if (existsSync(ignore)) continue;
    await mkdir(dir, { recursive: true, mode: 0o700 });
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

/** The scratch index an apply builds the task's tree in (beside where the file store keeps
 * the task's journal, as before; removed when the commit is made). */
export const scratchIndexFile = (layout: IsolationLayout, taskId: TaskId): string =>
  `${join(layout.isolationDir, 'apply', ...splitTaskId(taskId))}.json.index`;

export const worktreePath = (layout: IsolationLayout, taskId: TaskId): string =>
  join(layout.worktreesDir, ...splitTaskId(taskId));

/** `switchyard/<group>/<task>`. */
export const branchOf = (taskId: TaskId): string => `switchyard/${splitTaskId(taskId).join('/')}`;
