import {
  type IsolationConfig,
  type IsolationSettings,
  isolationSettings,
  type ResolvedIsolation,
  resolveIsolation,
} from '@switchyard/config';
import type { SourceGuard, Store, WorkspaceIsolation } from '@switchyard/core';
import type { GitIsolationOptions } from '@switchyard/git-isolation';

/** The store ports the git isolation keeps its records in and reads task states from. */
export type IsolationStore = Pick<Store, 'isolation' | 'tasks'>;

/** The isolation a run uses: the git one under "worktree", none otherwise, and its warning. */
export interface RunIsolation extends ResolvedIsolation {
  isolation?: WorkspaceIsolation;
  settings: IsolationSettings;
}

/** What `openGitIsolation` takes from the project config's `isolation` (and the store). */
export function gitIsolationOptions(
  settings: IsolationSettings,
  store: IsolationStore,
): GitIsolationOptions {
  return {
    store,
    ...(settings.dir ? { dir: settings.dir } : {}),
    ...(settings.copy.length > 0 ? { copy: settings.copy } : {}),
  };
}

/**
 * The git isolation of `workspace` as the project config sets it up, keeping its worktree
 * records and apply journals in `store` (undefined outside git).
 */
export async function openConfiguredIsolation(
  workspace: string,
  config: IsolationConfig | undefined,
  store: IsolationStore,
): Promise<WorkspaceIsolation | undefined> {
  const { openGitIsolation } = await import('@switchyard/git-isolation');
  return openGitIsolation(workspace, gitIsolationOptions(isolationSettings(config), store));
}

/**
 * Resolves project config `isolation` for `workspace`: unset or "worktree" in a git
 * repository opens a worktree per task (@switchyard/git-isolation); "none", or a workspace
 * outside git, runs in the shared workspace with a warning that says how to isolate.
 */
export async function openRunIsolation(
  workspace: string,
  config: IsolationConfig | undefined,
  store: IsolationStore,
): Promise<RunIsolation> {
  const settings = isolationSettings(config);
  const configured = settings.mode;
  if (configured === 'none') return { ...resolveIsolation('none', true), settings };
  let isolation: WorkspaceIsolation | undefined;
  try {
    isolation = await openConfiguredIsolation(workspace, config, store);
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

/**
 * The source guard of a run in a git workspace (whatever the isolation): what an agent
 * attempt changes in the source checkout is put back. Undefined outside git, or without git.
 */
export async function openRunSourceGuard(
  workspace: string,
  config: IsolationConfig | undefined,
): Promise<SourceGuard | undefined> {
  const { openSourceGuard } = await import('@switchyard/git-isolation');
  try {
    const { dir } = isolationSettings(config);
    return await openSourceGuard(workspace, dir ? { dir } : {});
  } catch (error) {
    if (/ENOENT/.test(String(error))) return undefined; // git is not installed
    throw error;
  }
}
