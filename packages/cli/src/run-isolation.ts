import {
  type IsolationConfig,
  type IsolationSettings,
  isolationSettings,
  type ResolvedIsolation,
  resolveIsolation,
  type WorkspaceIsolation,
} from '@switchyard/core';
import type { GitIsolationOptions } from '@switchyard/git-isolation';

/** The isolation a run uses: the git one under "worktree", none otherwise, and its warning. */
export interface RunIsolation extends ResolvedIsolation {
  isolation?: WorkspaceIsolation;
  settings: IsolationSettings;
}

/** What `openGitIsolation` takes from the project config's `isolation`. */
export function gitIsolationOptions(settings: IsolationSettings): GitIsolationOptions {
  return {
    ...(settings.dir ? { dir: settings.dir } : {}),
    ...(settings.copy.length > 0 ? { copy: settings.copy } : {}),
  };
}

/** The git isolation of `workspace` as the project config sets it up (undefined outside git). */
export async function openConfiguredIsolation(
  workspace: string,
  config: IsolationConfig | undefined,
): Promise<WorkspaceIsolation | undefined> {
  const { openGitIsolation } = await import('@switchyard/git-isolation');
  return openGitIsolation(workspace, gitIsolationOptions(isolationSettings(config)));
}

/**
 * Resolves project config `isolation` for `workspace`: unset or "worktree" in a git
 * repository opens a worktree per task (@switchyard/git-isolation); "none", or a workspace
 * outside git, runs in the shared workspace with a warning that says how to isolate.
 */
export async function openRunIsolation(
  workspace: string,
  config: IsolationConfig | undefined,
): Promise<RunIsolation> {
  const settings = isolationSettings(config);
  const configured = settings.mode;
  if (configured === 'none') return { ...resolveIsolation('none', true), settings };
  let isolation: WorkspaceIsolation | undefined;
  try {
    isolation = await openConfiguredIsolation(workspace, config);
  } catch (error) {
    // Without git installed there is no repository to isolate in: the shared workspace, warned.
    if (configured === 'worktree' || !/ENOENT/.test(String(error))) throw error;
    return {
      mode: 'none',
      settings,
      warning:
        'git is not installed (or not on PATH): tasks share the workspace (isolation "none"); install git to give every task its own worktree',
    };
  }
  const resolved = resolveIsolation(configured, isolation !== undefined);
  return isolation && resolved.mode === 'worktree'
    ? { ...resolved, isolation, settings }
    : { ...resolved, settings };
}

/** Whether `workspace` is in a git repository (dry run: nothing is created). */
export async function inGitRepository(workspace: string): Promise<boolean> {
  const { isGitRepository } = await import('@switchyard/git-isolation');
  return isGitRepository(workspace);
}
