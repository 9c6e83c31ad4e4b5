import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SwitchyardError } from '@switchyard/core/errors';

/** The folder of tasks inside a workspace. */
const TASKS_DIR = 'agent-task';

const isDir = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** A git work tree's top: `.git` is a folder, or a file in a linked worktree or submodule. */
const isGitRoot = (dir: string) => existsSync(join(dir, '.git'));

/** True when `dir` holds an `agent-task/` folder. */
export function hasTasksDir(dir: string): boolean {
  return isDir(join(dir, TASKS_DIR));
}

/** Where a workspace search ended, and every folder it looked in. */
export interface WorkspaceSearch {
  /** The workspace root, when one was found. */
  root?: string;
  /** The folders looked at, nearest first. */
  looked: string[];
  /** The git root that ended the search, if it was one. */
  gitRoot?: string;
}

/**
 * Walks from `start` upward the way git finds its root: the first folder holding
 * `agent-task/` (or, via `isMarker`, a switchyard config file) is the workspace. The walk
 * never goes above the git root (the nearest folder holding `.git`), nor above `/`.
 */
export function searchWorkspaceRoot(
  start: string,
  isMarker: (dir: string) => boolean = () => false,
): WorkspaceSearch {
  const looked: string[] = [];
  let dir = resolve(start);
  for (;;) {
    looked.push(dir);
    if (hasTasksDir(dir) || isMarker(dir)) return { root: dir, looked };
    if (isGitRoot(dir)) return { looked, gitRoot: dir };
    const parent = dirname(dir);
    if (parent === dir) return { looked };
    dir = parent;
  }
}

/** Options of {@link findWorkspaceRoot}. */
export interface FindWorkspaceOptions {
  /** `--workspace DIR`: used as given (no search), but it must hold `agent-task/`. */
  explicit?: string;
  /** The folder the search starts from (default `process.cwd()`). */
  cwd?: string;
  /** Extra markers of a workspace root (a switchyard config file). */
  isMarker?: (dir: string) => boolean;
  /** Require `agent-task/` in the root (default true; `task new` creates it). */
  requireTasks?: boolean;
}

/**
 * The workspace root for a command: `--workspace` when given, else found from the current
 * folder upward (see {@link searchWorkspaceRoot}). Throws SY_WORKSPACE_NOT_FOUND (exit 2),
 * naming where it looked, when there is no workspace or it holds no `agent-task/`. Never
 * creates anything.
 */
export function findWorkspaceRoot(opts: FindWorkspaceOptions = {}): string {
  const requireTasks = opts.requireTasks ?? true;
  if (opts.explicit !== undefined) {
    const root = resolve(opts.cwd ?? process.cwd(), opts.explicit);
    if (!isDir(root))
      throw new SwitchyardError('SY_WORKSPACE_NOT_FOUND', `--workspace ${root} is not a folder.`, {
        hint: 'pass --workspace <repository root holding agent-task/>',
      });
    if (requireTasks && !hasTasksDir(root)) throw noTasks(root, [root]);
    return root;
  }
  const start = resolve(opts.cwd ?? process.cwd());
  const search = searchWorkspaceRoot(start, opts.isMarker);
  if (search.root && (!requireTasks || hasTasksDir(search.root))) return search.root;
  if (search.root) throw noTasks(search.root, search.looked);
  throw noTasks(start, search.looked, search.gitRoot);
}

function noTasks(where: string, looked: string[], gitRoot?: string): SwitchyardError {
  const span =
    looked.length > 1 ? `${looked[0]} and its parents up to ${looked.at(-1)}` : `${looked[0]}`;
  const stop = gitRoot ? ` (the search stops at the git root ${gitRoot})` : '';
  return new SwitchyardError(
    'SY_WORKSPACE_NOT_FOUND',
    `no tasks here: no agent-task/ folder in ${span}${stop}.`,
    {
      file: where,
      hint:
        'run the command inside a repository that holds agent-task/<group>/<task>/PLAN.md, ' +
        'pass --workspace <that folder>, or create a first task with ' +
        '"switchyard task new <group>/<task>"',
    },
  );
}
