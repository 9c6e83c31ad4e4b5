import { firstLine, git } from './git.js';
import { currentBranch, findRepository } from './repository.js';

/** The remote branch a source checkout lands on: its branch's upstream. */
export interface RemoteBranch {
  /** The remote's name (`origin`) and its URL as git has it. */
  remote: string;
  url: string;
  /** The branch on the remote (`main`), and the checked-out local branch that follows it. */
  branch: string;
  localBranch: string;
  /** Real path of the source checkout. */
  root: string;
}

/**
 * The upstream of the workspace's checked-out branch (`branch.<name>.remote` and `.merge`),
 * or undefined outside git, on a detached HEAD or on a branch without an upstream.
 */
export async function remoteBranchOf(workspace: string): Promise<RemoteBranch | undefined> {
  const repo = await findRepository(workspace);
  const localBranch = repo ? await currentBranch(repo) : undefined;
  if (!repo || !localBranch) return undefined;
  const config = async (key: string) => {
    const out = await git(repo.root, ['config', '--get', key], { allow: [1] });
    return out.exitCode === 0 ? firstLine(out) : undefined;
  };
  const remote = await config(`branch.${localBranch}.remote`);
  const merge = await config(`branch.${localBranch}.merge`);
  const url = remote ? await config(`remote.${remote}.url`) : undefined;
  if (!remote || !merge || !url || remote === '.') return undefined;
  return { remote, url, branch: merge.replace(/^refs\/heads\//, ''), localBranch, root: repo.root };
}
