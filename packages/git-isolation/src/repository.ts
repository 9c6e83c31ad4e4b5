import { realpath } from 'node:fs/promises';
import { posix, relative, sep } from 'node:path';
import { firstLine, git } from './git.js';

/** The git repository a workspace lives in. */
export interface Repository {
  /** Real path of the workspace (may be a subdirectory of the repository). */
  workspace: string;
  /** Real path of the source checkout's top level. */
  root: string;
  /** The workspace relative to `root`, POSIX separators; '' at the top level. */
  prefix: string;
  /** The source checkout's own git directory (its index, HEAD, index.lock). */
  gitDir: string;
  /** The directory shared by all worktrees of the repository (objects, refs). */
  commonDir: string;
}

/** Finds the repository of `workspace`, or undefined when it is not inside a git work tree. */
export async function findRepository(workspace: string): Promise<Repository | undefined> {
  const real = await realpath(workspace);
  const probe = await git(
    real,
    [
      'rev-parse',
      '--is-inside-work-tree',
      '--show-toplevel',
      '--path-format=absolute',
      '--git-dir',
      '--git-common-dir',
    ],
    { allow: [128] },
  );
  const [inside, top, gitDir, commonDir] = probe.stdout.split('\n');
  if (probe.exitCode !== 0 || inside !== 'true' || !top || !gitDir || !commonDir) return undefined;
  const root = await realpath(top);
  return {
    workspace: real,
    root,
    prefix: relative(root, real).split(sep).join(posix.sep),
    gitDir,
    commonDir,
  };
}

/** True when `workspace` is inside a git work tree (what `resolveIsolation` needs). */
export async function isGitRepository(workspace: string): Promise<boolean> {
  return (await findRepository(workspace)) !== undefined;
}

/** The branch the source checkout has checked out, or undefined on a detached HEAD. */
export async function currentBranch(repo: Repository): Promise<string | undefined> {
  const head = await git(repo.root, ['symbolic-ref', '-q', '--short', 'HEAD'], { allow: [1] });
  return head.exitCode === 0 ? firstLine(head) : undefined;
}

/** The commit a ref names, or undefined when it does not exist. */
export async function resolveCommit(cwd: string, ref: string): Promise<string | undefined> {
  const out = await git(cwd, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { allow: [1] });
  return out.exitCode === 0 ? firstLine(out) : undefined;
}

/** Repository-relative path → workspace-relative (`../x` when outside the workspace). */
export const toWorkspacePath = (repo: Repository, file: string): string =>
  repo.prefix === '' ? file : posix.relative(repo.prefix, file);

/** Workspace-relative path → repository-relative. */
export const toRepoPath = (repo: Repository, file: string): string =>
  repo.prefix === '' ? file : posix.join(repo.prefix, file);
