import type { ApplyResult, TaskId } from '@switchyard/core';
import { firstLine, git } from './git.js';
import type { RemoteBranch } from './remote-branch.js';

/** The source checkout's git operations against the remote branch it lands on. */
export class RemoteCheckout {
  /** The remote-tracking ref of the target branch, as the last fetch left it. */
  readonly tracking: string;

  constructor(readonly target: RemoteBranch) {
    this.tracking = `refs/remotes/${target.remote}/${target.branch}`;
  }

  run(args: string[], allow?: number[]) {
    return git(this.target.root, args, allow ? { allow } : {});
  }

  fetch() {
    const { remote, branch } = this.target;
    return this.run(['fetch', '--quiet', remote, `+refs/heads/${branch}:${this.tracking}`]);
  }

  /** The source checkout at the remote tip (commits that never reached the remote are dropped). */
  async sync(): Promise<void> {
    await this.fetch();
    const ff = await this.run(['merge', '--ff-only', '--quiet', this.tracking], [1, 128]);
    if (ff.exitCode !== 0) await this.run(['reset', '--quiet', '--keep', this.tracking]);
  }

  /** Puts the checkout back at the fetched remote tip, dropping what did not land. */
  async backToRemote(): Promise<void> {
    await this.run(['reset', '--quiet', '--keep', this.tracking], [1, 128]);
  }

  /** The commit on the fetched remote branch that carries the task's trailer (recent history). */
  async landedCommit(taskId: TaskId): Promise<string | undefined> {
    const log = await this.run([
      'log',
      '-n',
      '1000',
      '--format=%H%x00%(trailers:key=Switchyard-Task,valueonly,separator=%x20)%x00',
      this.tracking,
    ]);
    for (const line of log.stdout.split('\n')) {
      const [sha, task] = line.split('\0');
      if (sha && task?.trim() === taskId) return sha;
    }
    return undefined;
  }

  async parentOf(commit: string): Promise<string> {
    return firstLine(await this.run(['rev-parse', `${commit}^`]));
  }

  /** The task's commit found on the remote branch: applied, nothing pushed. */
  async landedAlready(taskId: TaskId, commit: string): Promise<ApplyResult> {
    const parent = await this.parentOf(commit);
    return {
      status: 'applied',
      taskId,
      baseCommit: parent,
      sourceTip: parent,
      sourceCommit: commit,
      files: [],
    };
  }

  /** Pushes `commit` to the remote branch, fast-forward only; false when the remote refused. */
  async push(commit: string): Promise<boolean> {
    const { remote, branch } = this.target;
    return (
      (await this.run(['push', '--quiet', remote, `${commit}:refs/heads/${branch}`], [1]))
        .exitCode === 0
    );
  }

  /** Replays the checkout's commit onto the fetched remote tip: its new id, or git's reason. */
  async replayOnRemote(): Promise<{ commit: string } | { refused: string }> {
    const rebase = await this.run(['rebase', '--quiet', this.tracking], [1, 128]);
    if (rebase.exitCode !== 0) {
      await this.run(['rebase', '--abort'], [1, 128]);
      return { refused: rebase.stderr.trim() };
    }
    return { commit: firstLine(await this.run(['rev-parse', 'HEAD'])) };
  }
}
