import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCommitPolicy } from '@switchyard/config';
import {
  newTaskState,
  type WorkLogRow,
  type WorkspaceIsolation,
  type WriteSetReport,
} from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { TaskLeases } from '../shared/task-leases.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { runWriteSetStage } from './stage-writeset.js';

const BASE = 'a'.repeat(40);

/** The write-set stage of one task whose worktree check reports `report`. */
async function check(report: WriteSetReport, policy?: AgentCommitPolicy) {
  const workspace = mkdtempSync(join(tmpdir(), 'sy-writeset-'));
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const rows: WorkLogRow[] = [];
  const store = createMemoryStore();
  const isolation = { inspect: async () => report } as unknown as WorkspaceIsolation;
  const ctx = {
    options: { isolation, ...(policy ? { agentCommitPolicy: policy } : {}) },
    workspace,
    stateDir: join(workspace, 'agent-task', '.switchyard'),
    now: () => new Date('2026-12-01T12:00:00Z'),
    secrets: [],
    bus: { emit: (e: { type: string }) => events.push(e) },
    workLog: { finish: (_group: string, row: WorkLogRow) => rows.push(row) },
    store,
    leases: new TaskLeases(store.leases, 'run-1'),
  } as unknown as DispatchContext;
  const state = newTaskState('g/t');
  state.phase = 'writeset';
  state.isolation = {
    branch: 'switchyard/g/t',
    path: workspace,
    workdir: workspace,
    sourceBranch: 'main',
    baseCommit: BASE,
    rolledBack: [],
  };
  const rt = {
    id: 'g/t',
    group: 'g',
    task: { writeSet: [{ path: 'src/a.js', line: 3 }] },
    state,
    version: 0,
  } as unknown as TaskRuntime;
  await runWriteSetStage(ctx, rt);
  const finish = rows.find((r) => r.kind === 'FINISH');
  const evidence = finish
    ? (JSON.parse(readFileSync(join(workspace, finish.locator), 'utf8')) as Record<string, unknown>)
    : undefined;
  return { rt, events, finish, evidence };
}

const clean = (over: Partial<WriteSetReport>): WriteSetReport => ({
  changed: ['src/a.js'],
  outside: [],
  gitMetadata: [],
  empty: false,
  ...over,
});

describe('the write-set stage: agent commits and undone git metadata', () => {
  const commits = ['1234567890ab agent: first', 'ba0987654321 agent: second'];

  it('warns about the agent’s own commits by default: work log, evidence and an event; the task goes on', async () => {
    const { rt, events, finish, evidence } = await check(clean({ agentCommits: commits }));
    expect(rt.state.correction).toBeUndefined();
    expect(rt.state.phase).not.toBe('worker');
    expect(finish?.result).toBe('success');
    expect(finish?.artifact).toBe(
      "changed: src/a.js · warning: the agent made 2 commit(s) of its own (1234567890ab agent: first; ba0987654321 agent: second); they are squashed into the task's one commit",
    );
    expect(evidence).toMatchObject({ agentCommits: commits, warnings: [expect.any(String)] });
    expect(events).toMatchObject([
      { type: 'task.isolation', task: 'g/t', step: 'agent-commits', files: commits },
    ]);
  });

  it('refuses them with isolation.agentCommits "refuse": a correction naming them and the base to reset to', async () => {
    const { rt, finish } = await check(clean({ agentCommits: commits }), 'refuse');
    expect(finish?.result).toBe('writeset-violated');
    expect(rt.state.phase).toBe('worker');
    expect(rt.state.correction?.summary).toContain('commits of your own are refused');
    expect(rt.state.correction?.summary).toContain(`git reset --soft ${BASE}`);
    expect(rt.state.correction?.evidence).toEqual(commits.map((c) => `agent commit: ${c}`));
  });

  it('tells the agent which refused metadata changes were put back and which it must undo', async () => {
    const all = await check(
      clean({
        gitMetadata: ['.git/config: core.hookspath (added)'],
        gitMetadataRestored: ['.git/config: core.hookspath (added)'],
      }),
    );
    expect(all.rt.state.correction?.summary).toBe(
      'changes to git metadata are refused (.git/config: core.hookspath (added)); the dispatcher has put them back as they were: do not run git; the dispatcher commits your changes',
    );
    const some = await check(
      clean({
        gitMetadata: ['.git/config: core.hookspath (added)', '.git/hooks/pre-push (changed)'],
        gitMetadataRestored: ['.git/config: core.hookspath (added)'],
      }),
    );
    expect(some.rt.state.correction?.summary).toContain(
      'the dispatcher has put back .git/config: core.hookspath (added): undo .git/hooks/pre-push (changed)',
    );
    expect(some.rt.state.correction?.evidence).toEqual([
      '.git/config: core.hookspath (added): put back',
      '.git/hooks/pre-push (changed)',
    ]);
  });
});
