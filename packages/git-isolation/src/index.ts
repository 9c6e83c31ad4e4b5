export { commandCheck } from './command-check.js';
export { type GitIsolationOptions, openGitIsolation } from './git-isolation.js';

export { layoutOf } from './layout.js';

export { type RemoteBranch, remoteBranchOf } from './remote-branch.js';
export { landOnRemote } from './remote-landing.js';
export { canonicalRemoteUrl } from './remote-url.js';
export {
  findRepository,
  isGitRepository,
  type Repository,
  toRepoPath,
  toWorkspacePath,
} from './repository.js';
export { openSourceGuard } from './source-guard.js';
export { dirtySourceFiles } from './source-tree.js';
