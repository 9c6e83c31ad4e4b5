export { type ApplyOptions, applyTask } from './apply.js';
export { DEFAULT_LOCK_TIMEOUT_MS } from './apply-lock.js';
export { cleanWorktrees, listWorktrees } from './cleanup.js';
export { commandCheck } from './command-check.js';
export { commitMessage } from './commit.js';
export { type GitIsolationOptions, openGitIsolation } from './git-isolation.js';
export { inspectWorktree, revertOutside } from './inspect.js';
export { type IsolationLayout, type LayoutOptions, layoutOf } from './layout.js';
export { worktreePatch } from './patch.js';
export { recoverApplies } from './recover.js';
export {
  findRepository,
  isGitRepository,
  type Repository,
  toRepoPath,
  toWorkspacePath,
} from './repository.js';
export { dirtySourceFiles } from './source-tree.js';
export type { TimingSink } from './timing.js';
export {
  ensureWorktree,
  type IsolationContext,
  markBlocked,
  recreateWorktree,
  removeWorktree,
} from './worktree.js';
