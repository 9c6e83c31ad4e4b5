/** Where a task's agents and gates work: a git worktree of its own, or the shared workspace. */
export type IsolationMode = 'worktree' | 'none';

/** What happens to changes outside a task's write set. */
export type WriteSetPolicy = 'correct' | 'revert-outside';

/** What happens to commits an agent makes in its worktree (config `isolation.agentCommits`). */
export type AgentCommitPolicy = 'warn' | 'refuse';

/** The isolation a run uses, and the warning dry run and run print when it is not a worktree. */
export interface ResolvedIsolation {
  mode: IsolationMode;
  warning?: string;
}

/**
 * Resolves the configured isolation against the workspace: unset means "worktree" in a git
 * repository and "none" outside git. Asking for worktrees outside git is not an error (the
 * workspace may simply not be a repository yet): it falls back to "none" with a warning.
 */
export function resolveIsolation(
  configured: IsolationMode | undefined,
  inGitRepository: boolean,
): ResolvedIsolation {
  if (configured === 'none')
    return {
      mode: 'none',
      warning:
        'isolation: "none": tasks share the workspace; only write-set claims keep them apart and gates see each other\'s unfinished work',
    };
  if (inGitRepository) return { mode: 'worktree' };
  return {
    mode: 'none',
    warning: `the workspace is not in a git repository: tasks share it (isolation "none"); run \`git init\` and commit to give every task its own worktree${configured === 'worktree' ? ' as configured' : ''}`,
  };
}
