import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  newTaskState,
  type WorkLogRow,
  type WorkspaceIsolation,
  type WorktreeRecord,
} from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { TaskLeases } from '../shared/task-leases.js';
import type { CommandRequest, CommandResult, DispatchContext, TaskRuntime } from '../types.js';
import { setUpWorktree } from './worktree-setup.js';

const ok: CommandResult = { exitCode: 0, signal: null, stdout: '', tail: [], timedOut: false };
/** What the CLI's runner returns for a command it stopped at the timeout. */
const timedOut: CommandResult = {
  exitCode: null,
  signal: 'SIGTERM',
  stdout: '',
  tail: ['generating schema…', 'still generating…'],
  timedOut: true,
};

/** The set-up of one task's new worktree, the runner answering `results` in turn. */
async function setUp(results: CommandResult[], record: Partial<WorktreeRecord> = {}) {
  const workspace = mkdtempSync(join(tmpdir(), 'sy-setup-'));
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const rows: WorkLogRow[] = [];
  const requests: CommandRequest[] = [];
  const marked: string[] = [];
  const store = createMemoryStore();
  const ctx = {
    options: {
      isolation: {
        markSetUp: async (id: string) => marked.push(id),
        inspect: async () => ({ changed: [], outside: [], gitMetadata: [], empty: true }),
      } as unknown as WorkspaceIsolation,
      worktreeSetup: {
        commands: [
          ['npm', 'ci'],
          ['node', 'gen.js'],
        ],
        timeoutMs: 90_000,
      },
      runCommand: async (request: CommandRequest) => {
        requests.push(request);
        mkdirSync(dirname(request.outputFile), { recursive: true });
        writeFileSync(request.outputFile, `$ ${request.argv.join(' ')}\n`);
        return results.shift() ?? ok;
      },
    },
    workspace,
    stateDir: join(workspace, 'agent-task', '.switchyard'),
    now: () => new Date('2026-12-01T12:00:00Z'),
    secrets: [],
    signal: new AbortController().signal,
    bus: { emit: (e: { type: string }) => events.push(e) },
    workLog: { finish: (_group: string, row: WorkLogRow) => rows.push(row) },
    store,
    leases: new TaskLeases(store.leases, 'run-1'),
  } as unknown as DispatchContext;
  const state = newTaskState('g/t');
  state.phase = 'worker';
  const workdir = join(workspace, 'worktree');
  state.isolation = {
    branch: 'switchyard/g/t',
    path: workdir,
    workdir,
    sourceBranch: 'main',
    baseCommit: 'a'.repeat(40),
    rolledBack: [],
  };
  const rt = { id: 'g/t', group: 'g', task: {}, state, version: 0 } as unknown as TaskRuntime;
  const full = { taskId: 'g/t', path: workdir, workdir, ...record } as WorktreeRecord;
  const passed = await setUpWorktree(ctx, rt, full);
  return { passed, rt, events, rows, requests, marked, workspace };
}

describe('a worktree set-up', () => {
  it('runs each command in the worktree with the timeout, marks it set up, and reports the time', async () => {
    const { passed, rt, requests, marked, rows, events } = await setUp([ok, ok]);
    expect(passed).toBe(true);
    expect(requests.map((r) => [r.argv, r.cwd, r.timeoutMs, r.env?.SWITCHYARD_TASK])).toEqual([
      [['npm', 'ci'], rt.state.isolation?.workdir, 90_000, 'g/t'],
      [['node', 'gen.js'], rt.state.isolation?.workdir, 90_000, 'g/t'],
    ]);
    expect(marked).toEqual(['g/t']);
    expect(rt.state.isolation?.setup).toMatchObject({ state: 'passed', total: 2 });
    expect(rows.map((r) => [r.kind, r.role, r.result])).toEqual([
      ['START', 'setup', 'running'],
      ['FINISH', 'setup', 'success'],
    ]);
    expect(events.map((e) => e.step)).toEqual(['setup', 'setup-passed']);
  });

  it('a command stopped at the timeout blocks the task with the command, the timeout and its output tail; nothing is marked set up', async () => {
    const { passed, rt, requests, marked, rows, workspace } = await setUp([ok, timedOut]);
    expect(passed).toBe(false);
    expect(requests).toHaveLength(2);
    expect(marked).toEqual([]);
    expect(rt.state.blocked).toMatchObject({
      stage: 'setup',
      reason:
        'the worktree set-up failed: node gen.js timed out after 90 s (fix the command in isolation.setup or what it needs, then `switchyard retry g/t` runs the set-up again)',
    });
    expect(rt.state.blocked?.evidence.slice(-2)).toEqual([
      'generating schema…',
      'still generating…',
    ]);
    expect(rt.state.isolation?.setup).toMatchObject({ state: 'failed', index: 2, total: 2 });
    const finish = rows.find((r) => r.kind === 'FINISH')!;
    expect(finish.result).toBe('setup-failed');
    const evidence = JSON.parse(readFileSync(join(workspace, finish.locator), 'utf8'));
    expect(
      evidence.steps.map((s: { command: string[]; timedOut: boolean }) => [s.command, s.timedOut]),
    ).toEqual([
      [['npm', 'ci'], false],
      [['node', 'gen.js'], true],
    ]);
  });

  it('a worktree already set up (a restart re-attached it) runs nothing again', async () => {
    const { passed, requests, rows } = await setUp([], { setUpAt: '2026-12-01T11:00:00Z' });
    expect(passed).toBe(true);
    expect(requests).toEqual([]);
    expect(rows).toEqual([]);
  });
});
