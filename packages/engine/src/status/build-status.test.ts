import { newTaskState, type RunEvent, type TaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { buildStatus } from './build-status.js';
import type { StatusInput } from './status-types.js';

const now = new Date('2026-01-02T10:00:00.000Z');
const started = (runId: string, pid: number, maxParallel = 2): RunEvent => ({
  type: 'run.started',
  at: '2026-01-02T09:00:00.000Z',
  runId,
  workspace: '/ws',
  pid,
  catalog: { source: 'bundled', revision: 'r1' },
  maxParallel,
  tasks: 5,
});
const finished = (runId: string, exitCode: 0 | 3): RunEvent => ({
  type: 'run.finished',
  at: '2026-01-02T09:30:00.000Z',
  runId,
  exitCode,
  counts: { running: 0, ready: 0, waiting: 0, blocked: 0, done: 0 },
  elapsedMs: 1,
  blocked: [],
});

function running(task: string, id: string): TaskState {
  const s = newTaskState(task, now);
  s.attempts.push({
    id,
    role: 'worker',
    planLoop: 1,
    target: 'fast',
    attemptDir: `/ws/agent-task/.switchyard/attempts/${id}`,
    status: 'running',
    pid: 4242,
    startedAt: '2026-01-02T09:59:00.000Z',
  });
  return s;
}

function input(over: Partial<StatusInput>): StatusInput {
  return {
    workspace: '/ws',
    now,
    tasks: [],
    archived: [],
    states: [],
    claims: new Map(),
    events: [],
    liveAttempts: new Map(),
    ...over,
  };
}

describe('buildStatus', () => {
  const tasks = [
    { id: 'g/a', dependsOn: [], writeSet: ['src/shared.ts'] },
    { id: 'g/b', dependsOn: ['g/a'], writeSet: ['src/b.ts'] },
    { id: 'g/c', dependsOn: [], writeSet: ['src/shared.ts'] },
    { id: 'g/d', dependsOn: [], writeSet: ['src/d.ts'] },
    { id: 'g/e', dependsOn: ['g/d'], writeSet: ['src/e.ts'] },
  ];
  const blockedD = (() => {
    const s = newTaskState('g/d', now);
    s.blocked = {
      reason: 'catalog changed: revision differs',
      stage: 'worker',
      evidence: ['decided revision: r0', 'current revision: r1'],
      at: '2026-01-02T09:10:00.000Z',
      catalog: { old: 'r0', new: 'r1' },
    };
    return s;
  })();

  it('during a run: running with PID/target/since, waiting with the rule that holds each task, blocked with why, done', () => {
    const report = buildStatus(
      input({
        tasks,
        archived: ['g/z'],
        states: [running('g/a', 'att-1'), blockedD],
        claims: new Map([['src/shared.ts', 'g/a']]),
        events: [started('run-1', 100)],
        lock: {
          holder: {
            pid: 100,
            startToken: 't',
            host: 'box',
            since: '2026-01-02T09:00:00.000Z',
            workspace: '/ws',
          },
          alive: true,
        },
        liveAttempts: new Map([['att-1', 4242]]),
      }),
    );
    expect(report.dispatcher).toMatchObject({
      state: 'running',
      pid: 100,
      host: 'box',
      lastRun: { runId: 'run-1' },
    });
    expect(report.running).toEqual([
      expect.objectContaining({
        task: 'g/a',
        role: 'worker',
        target: 'fast',
        pid: 4242,
        since: '2026-01-02T09:59:00.000Z',
        supervision: 'watched',
      }),
    ]);
    const why = Object.fromEntries(report.waiting.map((w) => [w.task, `${w.kind}: ${w.why}`]));
    expect(why['g/b']).toBe('dependencies: waits on g/a');
    expect(why['g/c']).toBe(
      'claim: write set collides with an active claim: src/shared.ts (held by g/a)',
    );
    expect(why['g/e']).toBe('dependency-blocked: waits on blocked g/d');
    expect(report.blocked).toEqual([
      expect.objectContaining({
        task: 'g/d',
        reason: 'catalog changed: revision differs',
        catalog: { old: 'r0', new: 'r1' },
      }),
    ]);
    expect(report.done).toEqual([{ task: 'g/z', archiveDir: 'agent-task/archive/g/z' }]);
    expect(report.counts).toEqual({ running: 1, waiting: 3, blocked: 1, done: 1 });
  });

  it('after a crash: the run never finished; a live agent is orphaned (sandboxed or not), a gone one is interrupted', () => {
    const sandboxed = running('g/a', 'att-1');
    sandboxed.attempts[0]!.sandbox = 'bwrap';
    const report = buildStatus(
      input({
        tasks: [tasks[0]!, tasks[3]!],
        states: [sandboxed, running('g/d', 'att-2')],
        events: [started('run-1', 100)],
        lock: {
          holder: { pid: 100, startToken: 't', host: 'box', since: 'x', workspace: '/ws' },
          alive: false,
        },
        liveAttempts: new Map([['att-1', 4242]]),
      }),
    );
    expect(report.dispatcher).toMatchObject({
      state: 'crashed',
      pid: 100,
      lastRun: { runId: 'run-1' },
    });
    expect(report.dispatcher.lastRun?.exitCode).toBeUndefined();
    expect(report.running).toEqual([
      expect.objectContaining({ task: 'g/a', supervision: 'orphaned', sandbox: 'bwrap' }),
    ]);
    expect(report.waiting).toEqual([
      expect.objectContaining({
        task: 'g/d',
        kind: 'interrupted',
        why: expect.stringContaining('the next run judges it'),
      }),
    ]);
  });

  it('after a run: stopped with its exit code; backoff and free slots are explained', () => {
    const backoff = newTaskState('g/d', now);
    backoff.failures.worker = 2;
    backoff.notBefore = '2026-01-02T10:05:00.000Z';
    const report = buildStatus(
      input({
        tasks: [tasks[0]!, tasks[2]!, tasks[3]!],
        states: [backoff],
        events: [
          started('run-0', 90),
          finished('run-0', 0),
          started('run-1', 100, 1),
          finished('run-1', 3),
        ],
      }),
    );
    expect(report.dispatcher).toMatchObject({
      state: 'stopped',
      lastRun: { runId: 'run-1', exitCode: 3 },
    });
    const byTask = Object.fromEntries(report.waiting.map((w) => [w.task, w]));
    expect(byTask['g/d']).toMatchObject({ kind: 'backoff', until: '2026-01-02T10:05:00.000Z' });
    expect(byTask['g/d']?.why).toContain('after 2 consecutive failure(s)');
    // g/a and g/c share a file: one is ready, the other waits on the claim it would take.
    expect(byTask['g/a']?.kind).toBe('ready');
    expect(byTask['g/a']?.why).toBe('ready; the next `switchyard run` starts the worker');
    expect(byTask['g/c']).toMatchObject({ kind: 'claim' });
  });

  it('a new worktree being set up shows as running "setting up" (interrupted once no run watches); the disk cap holds fresh tasks', () => {
    const settingUp = newTaskState('g/a', now);
    settingUp.isolation = {
      branch: 'switchyard/g/a',
      path: '/cache/g/a',
      workdir: '/cache/g/a',
      sourceBranch: 'main',
      baseCommit: 'b'.repeat(40),
      rolledBack: [],
      setup: {
        state: 'running',
        since: '2026-01-02T09:59:00.000Z',
        command: ['pnpm', 'install'],
        index: 1,
        total: 2,
      },
      disk: { bytes: 600, sharedBytes: 0, at: '2026-01-02T09:59:30.000Z' },
    };
    const lock = {
      holder: {
        pid: 100,
        startToken: 't',
        host: 'box',
        since: '2026-01-02T09:00:00.000Z',
        workspace: '/ws',
      },
      alive: true,
    };
    const fresh = { id: 'g/f', dependsOn: [], writeSet: ['src/f.ts'] };
    const during = buildStatus(
      input({
        tasks: [tasks[0]!, fresh],
        states: [settingUp],
        events: [started('run-1', 100)],
        lock,
        worktreeDiskCap: 500,
      }),
    );
    expect(during.running).toEqual([
      expect.objectContaining({
        task: 'g/a',
        role: 'setup',
        since: '2026-01-02T09:59:00.000Z',
        activity: 'setting up its worktree: pnpm install (1 of 2)',
      }),
    ]);
    expect(during.waiting).toEqual([
      expect.objectContaining({
        task: 'g/f',
        kind: 'disk',
        why: expect.stringMatching(
          /^waits for worktree disk: the task worktrees take 600 B of the 500 B cap \(isolation\.maxDiskBytes\)/,
        ),
      }),
    ]);
    const after = buildStatus(
      input({ tasks: [tasks[0]!], states: [settingUp], events: [started('run-1', 100)] }),
    );
    expect(after.waiting).toEqual([
      expect.objectContaining({
        task: 'g/a',
        kind: 'interrupted',
        why: 'the set-up of its worktree was interrupted at pnpm install (1 of 2); the next run sets it up again',
      }),
    ]);
  });

  it('never run: every task is ready', () => {
    const report = buildStatus(input({ tasks: [tasks[3]!] }));
    expect(report.dispatcher.state).toBe('never-run');
    expect(report.waiting.map((w) => w.kind)).toEqual(['ready']);
  });

  it('a blocked task that keeps its claim (shared workspace) names the tasks waiting on it, and they say so', () => {
    const blockedA = newTaskState('g/a', now);
    blockedA.blocked = {
      reason: '10 consecutive failed definition-of-done gates',
      stage: 'gate',
      evidence: [],
      at: '2026-01-02T09:10:00.000Z',
    };
    const report = buildStatus(
      input({
        tasks: [tasks[0]!, tasks[2]!],
        states: [blockedA],
        claims: new Map([['src/shared.ts', 'g/a']]),
      }),
    );
    const c = report.waiting.find((w) => w.task === 'g/c');
    expect(c).toMatchObject({ kind: 'claim', blockedHolders: ['g/a'] });
    expect(c?.why).toMatch(
      /src\/shared\.ts \(held by g\/a, which is blocked\)\. A blocked task in the shared workspace keeps its claim .*switchyard resolve g\/a --retry/,
    );
    expect(report.blocked[0]).toMatchObject({ task: 'g/a', claimWaiters: ['g/c'] });
  });
});
