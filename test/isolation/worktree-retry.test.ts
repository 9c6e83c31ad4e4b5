import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, type Workspace } from '../dispatcher/helpers.js';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import {
  git,
  gitWorkspace,
  taskCommits,
  until,
  worktreeFile,
  worktreeOf,
} from './git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const works = [{ write: { path: 'src/a.js', content: 'v3\n' } }, { fillChecklist: true }];
const RECORD = 'agent-task/.switchyard/isolation/worktrees/g/a.json';

/** A task whose first two worker attempts are refused credentials (blocked at once), then works. */
function blockedTask(laterSteps: (ws: Workspace) => unknown[]): Workspace {
  const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
  ws.catalog({
    t: {
      scenario: {
        cases: [
          approve,
          {
            when: { role: 'worker', attempt: 1 },
            steps: [{ write: { path: 'src/a.js', content: 'v1\n' } }, { fault: 'auth' }],
          },
          { when: { role: 'worker', attempt: 2 }, steps: [{ fault: 'auth' }] },
        ],
        steps: laterSteps(ws),
      },
    },
  });
  ws.task('g/a', { files: ['src/a.js'] });
  return ws;
}

const recordState = (ws: Workspace): string => JSON.parse(ws.read(RECORD)).state;
const clean = async (ws: Workspace) => {
  const out = await cli(['clean', '--blocked', '--json', '--workspace', ws.dir]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { removed: { taskId: string }[]; kept: { taskId: string }[] };
};

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; the first run and those the test works beside are spawned.
describe('a retried blocked task gets its worktree back (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('switchyard retry re-activates the record; clean --blocked leaves the running task alone', async () => {
    const ws = blockedTask((w) => [{ waitFor: w.path('.scenario-go-on') }, ...works]);
    const first = await runInProcess(ws);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    expect(recordState(ws)).toBe('blocked');
    const retry = runCli([
      'retry',
      'g/a',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
    ]);
    await until(
      () =>
        ws.events().filter((e) => e.type === 'attempt.started' && e.role === 'worker').length === 3,
      'the retried worker to start',
    );
    expect(recordState(ws)).toBe('active');
    const report = await clean(ws);
    expect(report.removed).toEqual([]);
    expect(report.kept.map((k) => k.taskId)).toEqual(['g/a']);
    expect(existsSync(worktreeFile(ws, 'g/a', 'src/a.js')!)).toBe(true);
    writeFileSync(ws.path('.scenario-go-on'), 'go');
    const result = await retry;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(ws.read('src/a.js')).toBe('v3\n');
    expect(taskCommits(ws).map((c) => c.task)).toEqual(['g/a']);
  });

  it('after resolve --retry, clean --blocked checks the task’s state, not only the record', async () => {
    const ws = blockedTask(() => works);
    expect((await runInProcess(ws)).code).toBe(3);
    const resolved = await cli(['resolve', 'g/a', '--retry', '--workspace', ws.dir]);
    expect(resolved.code, resolved.stderr).toBe(0);
    // The record still says blocked (no run has touched it), the task is not blocked any more.
    expect(recordState(ws)).toBe('blocked');
    const report = await clean(ws);
    expect(report.removed).toEqual([]);
    expect(existsSync(worktreeFile(ws, 'g/a', 'src/a.js')!)).toBe(true);
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(/g\/a +active +switchyard\/g\/a/);
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(ws.read('src/a.js')).toBe('v3\n');
  });

  it('a blocked worktree clean --blocked removed is recreated from the current tip on retry', async () => {
    const ws = blockedTask(() => works);
    expect((await runInProcess(ws)).code).toBe(3);
    const worktree = worktreeOf(ws, 'g/a')!;
    const report = await clean(ws);
    expect(report.removed.map((r) => r.taskId)).toEqual(['g/a']);
    expect(existsSync(worktree)).toBe(false);
    writeFileSync(ws.path('other.txt'), 'user\n');
    git(ws.dir, 'add', 'other.txt');
    git(ws.dir, 'commit', '-qm', 'user change');
    const tip = git(ws.dir, 'rev-parse', 'HEAD');
    const result = await cli([
      'retry',
      'g/a',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(ws.read('agent-task/archive/g/a/complete.log')).toContain(`base commit: ${tip}`);
    expect(git(ws.dir, 'rev-parse', 'HEAD~1')).toBe(tip);
    expect(ws.read('src/a.js')).toBe('v3\n');
  });
});
