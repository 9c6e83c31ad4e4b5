import {
  type ApplyRequest,
  type ApplyResult,
  SwitchyardError,
  type TaskId,
  type WorkspaceIsolation,
} from '@switchyard/core';
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

/** What {@link landOnRemote} needs besides the local isolation. */
export interface RemoteLandingOptions {
  target: RemoteBranch;
  /**
   * Runs `fn` while this machine has the remote branch's apply turn (one machine at a time
   * for every machine on the backlog: the CLI takes it from the shared store); undefined when
   * `stop` ended the wait for it.
   */
  exclusive<T>(fn: () => Promise<T>, stop?: AbortSignal): Promise<T | undefined>;
  /** Pushes refused because the remote moved (someone else pushed) before giving up. */
  maxPushRetries?: number;
}

/**
 * The local worktree isolation, landing on a shared remote branch: one apply queue per remote
 * branch across machines (`exclusive`). New worktrees start from the remote tip (fetched and
 * fast-forwarded first, so a dependency another machine landed is there). An apply, in the
 * remote branch's turn: fetches and fast-forwards the source checkout, skips a task whose
 * commit is on the remote already (a crash between its push and its record), applies locally
 * (the rebase onto the tip and the plan's definition of done on the source, as on one
 * machine), confirms the task is still this dispatcher's, and pushes fast-forward only; a
 * refused push fetches, replays the commit on the new tip and tries again (unless the new tip
 * carries the task: a holder that lost it pushed first, and that commit is its landing).
 * `landedOnRemote` is that same look, for a task taken over before anything runs for it.
 */
export function landOnRemote(
  inner: WorkspaceIsolation,
  options: RemoteLandingOptions,
): WorkspaceIsolation {
  const { target } = options;
  const tracking = `refs/remotes/${target.remote}/${target.branch}`;
  const run = (args: string[], allow?: number[]) => git(target.root, args, allow ? { allow } : {});
  // One git operation on the source checkout at a time within this process.
  let queue: Promise<unknown> = Promise.resolve();
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const fetch = () =>
    run(['fetch', '--quiet', target.remote, `+refs/heads/${target.branch}:${tracking}`]);
  /** The source checkout at the remote tip (commits that never reached the remote are dropped). */
  const sync = async () => {
    await fetch();
    const ff = await run(['merge', '--ff-only', '--quiet', tracking], [1, 128]);
    if (ff.exitCode !== 0) await run(['reset', '--quiet', '--keep', tracking]);
  };
  const landedCommit = async (taskId: TaskId) => {
    const log = await run([
      'log',
      '-n',
      '1000',
      '--format=%H%x00%(trailers:key=Switchyard-Task,valueonly,separator=%x20)%x00',
      tracking,
    ]);
    for (const line of log.stdout.split('\n')) {
      const [sha, task] = line.split('\0');
      if (sha && task?.trim() === taskId) return sha;
    }
    return undefined;
  };
  /** The task's commit found on the remote branch: applied, nothing pushed. */
  const landedAlready = async (taskId: TaskId, commit: string): Promise<ApplyResult> => {
    const parent = firstLine(await run(['rev-parse', `${commit}^`]));
    return {
      status: 'applied',
      taskId,
      baseCommit: parent,
      sourceTip: parent,
      sourceCommit: commit,
      files: [],
    };
  };
  const push = async (commit: string) =>
    (await run(['push', '--quiet', target.remote, `${commit}:refs/heads/${target.branch}`], [1]))
      .exitCode === 0;

  const apply = async (request: ApplyRequest): Promise<ApplyResult> => {
    await sync();
    const landed = await landedCommit(request.taskId);
    if (landed) return landedAlready(request.taskId, landed);
    await request.confirm?.();
    const result = await inner.apply(request);
    if (result.status !== 'applied') return result;
    let commit = result.sourceCommit;
    try {
      for (let tries = 0; ; tries++) {
        await request.confirm?.();
        if (await push(commit)) return { ...result, sourceCommit: commit };
        if (tries >= (options.maxPushRetries ?? 5))
          throw new SwitchyardError(
            'SY_GIT',
            `${request.taskId}: the push to ${target.remote}/${target.branch} was refused ${tries + 1} times (the remote branch kept moving).`,
            { hint: 'Nothing landed; the task applies again on the next run.' },
          );
        // Someone pushed meanwhile: replay the task's commit on the new remote tip, unless
        // that push carried this task (a holder that lost it pushed before it learned so): then
        // that commit is the task's landing, recorded here, and this one is dropped.
        await fetch();
        const theirs = await landedCommit(request.taskId);
        if (theirs) {
          await run(['reset', '--quiet', '--keep', tracking], [1, 128]);
          return landedAlready(request.taskId, theirs);
        }
        const rebase = await run(['rebase', '--quiet', tracking], [1, 128]);
        if (rebase.exitCode !== 0) {
          await run(['rebase', '--abort'], [1, 128]);
          throw new SwitchyardError(
            'SY_GIT',
            `${request.taskId}: its commit does not replay on the new tip of ${target.remote}/${target.branch}: ${rebase.stderr.trim()}`,
            { hint: 'Nothing landed; the task applies again on the next run, on the new tip.' },
          );
        }
        commit = firstLine(await run(['rev-parse', 'HEAD']));
      }
    } catch (error) {
      // Not landed (refused, or the task is no longer ours): the checkout goes back to the remote.
      await run(['reset', '--quiet', '--keep', tracking], [1, 128]);
      throw error;
    }
  };

  return {
    ...inner,
    ensureWorktree: async (taskId) => {
      if (!inner.worktreeOf(taskId)) await turn(sync);
      return inner.ensureWorktree(taskId);
    },
    recreateWorktree: async (taskId) => {
      await turn(sync);
      return inner.recreateWorktree(taskId);
    },
    landedOnRemote: (taskId) =>
      turn(async () => {
        await fetch();
        const commit = await landedCommit(taskId);
        if (!commit) return undefined;
        const parent = firstLine(await run(['rev-parse', `${commit}^`]));
        return { commit, parent, sourceBranch: target.localBranch };
      }),
    apply: (request) =>
      turn(async () => {
        const result = await options.exclusive(() => apply(request), request.stop);
        return (
          result ?? {
            status: 'interrupted',
            taskId: request.taskId,
            message: `stopped while waiting for the apply turn of ${target.remote}/${target.branch}`,
          }
        );
      }),
  };
}
