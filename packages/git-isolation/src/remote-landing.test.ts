import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplyRequest, WorkspaceIsolation } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteBranchOf } from './remote-branch.js';
import { landOnRemote } from './remote-landing.js';
import { makeRepo, put, sh } from './test-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bare remote seeded from a fresh repository, and a clone of it tracking origin/main. */
function remoteAndClone(): { remote: string; clone: () => string } {
  const seed = makeRepo();
  const base = mkdtempSync(join(tmpdir(), 'sy-remote-'));
  dirs.push(seed, base);
  const remote = join(base, 'remote.git');
  sh(base, 'clone', '-q', '--bare', seed, remote);
  const clone = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-clone-'));
    dirs.push(dir);
    sh(dir, 'clone', '-q', remote, '.');
    sh(dir, 'config', 'user.name', 'Machine');
    sh(dir, 'config', 'user.email', 'machine@example.com');
    return dir;
  };
  return { remote, clone };
}

/** Commits `file` with the task's trailer on the checkout's branch (what a local apply does). */
function commitTask(dir: string, task: string, file: string): string {
  put(dir, file, `${file}\n`);
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '-q', '-m', `${task}\n\nSwitchyard-Task: ${task}`);
  return sh(dir, 'rev-parse', 'HEAD');
}

const tasksOn = (remote: string) =>
  sh(remote, 'log', '--format=%(trailers:key=Switchyard-Task,valueonly,separator=)', 'main')
    .split('\n')
    .filter(Boolean);

describe('landOnRemote: one landing per task on the shared remote branch', () => {
  it('a push refused because a holder that lost the task pushed it first records that commit and pushes nothing; one refused by another task replays and lands', async () => {
    const { remote, clone } = remoteAndClone();
    const mine = clone();
    const stale = clone();
    const other = clone();
    const target = await remoteBranchOf(mine);
    if (!target) throw new Error('no upstream');
    let local = '';
    const inner = {
      apply: async (request: ApplyRequest) => {
        local = commitTask(mine, request.taskId, `${request.taskId.replace('/', '-')}.txt`);
        return { status: 'applied', taskId: request.taskId, sourceCommit: local, files: [] };
      },
    } as unknown as WorkspaceIsolation;
    const landing = landOnRemote(inner, { target, exclusive: (fn) => fn() });
    const request = (taskId: string, beforePush: () => void): ApplyRequest => {
      let confirms = 0;
      return {
        taskId,
        title: taskId,
        targets: [],
        attempts: 1,
        writeSet: [],
        // The second confirmation is the one right before the push.
        confirm: async () => {
          if (++confirms === 2) beforePush();
        },
      };
    };

    // g/x: the holder that lost it pushes its commit between this one's check and its push.
    let theirs = '';
    const x = await landing.apply(
      request('g/x', () => {
        theirs = commitTask(stale, 'g/x', 'stale.txt');
        sh(stale, 'push', '-q', 'origin', 'main');
      }),
    );
    expect(x).toMatchObject({ status: 'applied', sourceCommit: theirs });
    expect(theirs).not.toBe(local);
    expect(tasksOn(remote)).toEqual(['g/x']);
    // The checkout is back at the remote tip: its own commit for g/x is gone.
    expect(sh(mine, 'rev-parse', 'HEAD')).toBe(theirs);

    // g/y: another task lands meanwhile; g/y's commit is replayed on it and pushed.
    const y = await landing.apply(
      request('g/y', () => {
        sh(other, 'pull', '-q', '--ff-only');
        commitTask(other, 'g/z', 'z.txt');
        sh(other, 'push', '-q', 'origin', 'main');
      }),
    );
    expect(y).toMatchObject({ status: 'applied' });
    expect(tasksOn(remote)).toEqual(['g/y', 'g/z', 'g/x']);
    expect(sh(remote, 'rev-list', '--merges', 'main')).toBe('');

    // A task taken over: its commit, pushed from another clone, is found after a fetch.
    sh(other, 'pull', '-q', '--ff-only');
    const before = sh(other, 'rev-parse', 'HEAD');
    const pushed = commitTask(other, 'g/w', 'w.txt');
    sh(other, 'push', '-q', 'origin', 'main');
    expect(await landing.landedOnRemote?.('g/w')).toEqual({
      commit: pushed,
      parent: before,
      sourceBranch: target.localBranch,
    });
    expect(await landing.landedOnRemote?.('g/none')).toBeUndefined();
  });
});
