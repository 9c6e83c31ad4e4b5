import {
  type IsolationMode,
  type ResolvedIsolation,
  resolveIsolation,
  type SourceGuard,
  type WorkspaceIsolation,
} from '@switchyard/core';

/** The isolation a run uses: the git one under "worktree", none otherwise, and its warning. */
export interface RunIsolation extends ResolvedIsolation {
  isolation?: WorkspaceIsolation;
}

/**
 * Resolves project config `isolation` for `workspace`: unset or "worktree" in a git
 * repository opens a worktree per task (@switchyard/git-isolation); "none", or a workspace
 * outside git, runs in the shared workspace with a warning that says how to isolate.
 */
export async function openRunIsolation(
  workspace: string,
  configured: IsolationMode | undefined,
): Promise<RunIsolation> {
  if (configured === 'none') return resolveIsolation('none', true);
  const { openGitIsolation } = await import('@switchyard/git-isolation');
  let isolation: WorkspaceIsolation | undefined;
  try {
    isolation = await openGitIsolation(workspace);
  } catch (error) {
    // Without git installed there is no repository to isolate in: the shared workspace, warned.
    if (configured === 'worktree' || !/ENOENT/.test(String(error))) throw error;
    return {
      mode: 'none',
      warning:
        'git is not installed (or not on PATH): tasks share the workspace (isolation "none"); install git to give every task its own worktree',
    };
  }
  const resolved = resolveIsolation(configured, isolation !== undefined);
  return isolation && resolved.mode === 'worktree' ? { ...resolved, isolation } : resolved;
}

/** Whether `workspace` is in a git repository (dry run: nothing is created). */
export async function inGitRepository(workspace: string): Promise<boolean> {
  const { isGitRepository } = await import('@switchyard/git-isolation');
  return isGitRepository(workspace);
}

/**
 * The source guard of a run in a git workspace (whatever the isolation): what an agent
 * attempt changes in the source checkout is put back. Undefined outside git, or without git.
 */
export async function openRunSourceGuard(workspace: string): Promise<SourceGuard | undefined> {
  const { openSourceGuard } = await import('@switchyard/git-isolation');
  try {
    return await openSourceGuard(workspace);
  } catch (error) {
    if (/ENOENT/.test(String(error))) return undefined; // git is not installed
    throw error;
  }
}
