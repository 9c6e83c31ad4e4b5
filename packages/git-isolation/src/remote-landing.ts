import {
  type ApplyRequest,
  type ApplyResult,
  SwitchyardError,
  type WorkspaceIsolation,
} from '@switchyard/core';
import type { RemoteBranch } from './remote-branch.js';
import { RemoteCheckout } from './remote-checkout.js';

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
  const checkout = new RemoteCheckout(options.target);
  const { remote, branch } = options.target;
  // One git operation on the source checkout at a time within this process.
  let queue: Promise<unknown> = Promise.resolve();
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const sync = () => checkout.sync();
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
        await checkout.fetch();
        const commit = await checkout.landedCommit(taskId);
        if (!commit) return undefined;
        const parent = await checkout.parentOf(commit);
        return { commit, parent, sourceBranch: options.target.localBranch };
      }),
    apply: (request) =>
      turn(async () => {
        const result = await options.exclusive(
          () => applyOnRemote(checkout, inner, request, options.maxPushRetries ?? 5),
          request.stop,
        );
        return (
          result ?? {
            status: 'interrupted',
            taskId: request.taskId,
            message: `stopped while waiting for the apply turn of ${remote}/${branch}`,
          }
        );
      }),
  };
}

/**
 * An apply in the remote branch's turn: the checkout at the remote tip, the task's landing
 * found there or the local apply, then pushed. Not landed: the checkout goes back to the remote.
 */
async function applyOnRemote(
  checkout: RemoteCheckout,
  inner: WorkspaceIsolation,
  request: ApplyRequest,
  maxPushRetries: number,
): Promise<ApplyResult> {
  await checkout.sync();
  const landed = await checkout.landedCommit(request.taskId);
  if (landed) return checkout.landedAlready(request.taskId, landed);
  await request.confirm?.();
  const result = await inner.apply(request);
  if (result.status !== 'applied') return result;
  try {
    return await pushUntilLanded(checkout, request, result, maxPushRetries);
  } catch (error) {
    // Not landed (refused, or the task is no longer ours): the checkout goes back to the remote.
    await checkout.backToRemote();
    throw error;
  }
}

/**
 * Pushes the applied commit, confirming the task is still ours before each push; a refused
 * push replays the commit on the new remote tip and tries again, at most `maxPushRetries` times.
 */
async function pushUntilLanded(
  checkout: RemoteCheckout,
  request: ApplyRequest,
  result: Extract<ApplyResult, { status: 'applied' }>,
  maxPushRetries: number,
): Promise<ApplyResult> {
  const { remote, branch } = checkout.target;
  let commit = result.sourceCommit;
  for (let tries = 0; ; tries++) {
    await request.confirm?.();
    if (await checkout.push(commit)) return { ...result, sourceCommit: commit };
    if (tries >= maxPushRetries)
      throw new SwitchyardError(
        'SY_GIT',
        `${request.taskId}: the push to ${remote}/${branch} was refused ${tries + 1} times (the remote branch kept moving).`,
        { hint: 'Nothing landed; the task applies again on the next run.' },
      );
    // Someone pushed meanwhile: replay the task's commit on the new remote tip, unless
    // that push carried this task (a holder that lost it pushed before it learned so): then
    // that commit is the task's landing, recorded here, and this one is dropped.
    await checkout.fetch();
    const theirs = await checkout.landedCommit(request.taskId);
    if (theirs) {
      await checkout.backToRemote();
      return checkout.landedAlready(request.taskId, theirs);
    }
    const replay = await checkout.replayOnRemote();
    if ('refused' in replay)
      throw new SwitchyardError(
        'SY_GIT',
        `${request.taskId}: its commit does not replay on the new tip of ${remote}/${branch}: ${replay.refused}`,
        { hint: 'Nothing landed; the task applies again on the next run, on the new tip.' },
      );
    commit = replay.commit;
  }
}
