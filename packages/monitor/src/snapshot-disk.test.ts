import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState, type TaskState } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SnapshotReader } from './snapshot.js';
import { SnapshotDiffer } from './snapshot-diff.js';

const PLAN = `---
route: cloud-G03
---
# task

## Modified Files Summary

- src/file.js

## Implementation Checklist

- [ ] do it
`;
const MiB = 2 ** 20;

let ws: string;
afterEach(() => rmSync(ws, { recursive: true, force: true }));

/** A task's worktree folder (the monitor counts only worktrees still on disk). */
const worktree = (id: string) => join(ws, 'worktrees', id);

/** A task state whose worktree the run measured (`isolation.disk`), in the given phase. */
function writeState(id: string, phase: TaskState['phase'], bytes: number, sharedBytes: number) {
  const state = newTaskState(id);
  state.phase = phase;
  state.isolation = {
    rolledBack: [],
    branch: `switchyard/${id}`,
    path: worktree(id),
    workdir: worktree(id),
    sourceBranch: 'main',
    baseCommit: 'a'.repeat(40),
    disk: { bytes, sharedBytes, at: new Date().toISOString() },
  };
  mkdirSync(worktree(id), { recursive: true });
  const [group, task] = id.split('/') as [string, string];
  mkdirSync(join(ws, 'agent-task', '.switchyard', 'tasks', group), { recursive: true });
  writeFileSync(
    join(ws, 'agent-task', '.switchyard', 'tasks', group, `${task}.json`),
    JSON.stringify(state),
  );
}

describe('the monitor shows worktree disk', () => {
  it('sums what the run measured for the worktrees still on disk (not a done task’s), with the shared part and the cap, and patches a change', async () => {
    ws = mkdtempSync(join(tmpdir(), 'sy-monitor-disk-'));
    for (const id of ['g/a', 'g/b', 'g/c']) {
      mkdirSync(join(ws, 'agent-task', id), { recursive: true });
      writeFileSync(join(ws, 'agent-task', id, 'PLAN.md'), PLAN);
    }
    writeFileSync(
      join(ws, 'switchyard.config.json'),
      JSON.stringify({ isolation: { maxDiskBytes: 64 * MiB } }),
    );
    writeState('g/a', 'worker', 3 * MiB, 40 * MiB);
    writeState('g/b', 'review', 2 * MiB, 0);
    writeState('g/c', 'done', 50 * MiB, 0);
    const reader = new SnapshotReader(ws, openFsStore({ workspace: ws }));
    await reader.init();
    const first = await reader.read();
    expect(first.worktreeDisk).toEqual({
      worktrees: 2,
      bytes: 5 * MiB,
      sharedBytes: 40 * MiB,
      cap: 64 * MiB,
      text: '2 worktree(s): 5.0 MiB (+ 40.0 MiB shared) of the 64.0 MiB cap',
    });
    // A new measurement reaches an open page as a patch of the disk line alone.
    writeState('g/b', 'review', 12 * MiB, 0);
    const differ = new SnapshotDiffer();
    differ.next(first);
    const second = await reader.read();
    expect(second.worktreeDisk.text).toBe(
      '2 worktree(s): 15.0 MiB (+ 40.0 MiB shared) of the 64.0 MiB cap',
    );
    const patch = differ.next(second);
    expect(patch?.set.worktreeDisk).toEqual(second.worktreeDisk);
    // A worktree removed since it was measured (`clean --blocked` between runs) no longer counts.
    rmSync(worktree('g/b'), { recursive: true });
    expect((await reader.read()).worktreeDisk.text).toBe(
      '1 worktree(s): 3.0 MiB (+ 40.0 MiB shared) of the 64.0 MiB cap',
    );
  });
});
