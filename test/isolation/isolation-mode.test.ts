import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, Workspace } from '../dispatcher/helpers.js';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import {
  git,
  gitWorkspace,
  prompts,
  readIf,
  sourceStatus,
  until,
  worktreeFile,
} from './git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

/** Worker attempts 1 and 2: the first writes `v1`, both are refused credentials (blocked); then `v3` is appended. */
const blockThenAppend = {
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
      steps: [
        { write: { path: 'src/a.js', content: 'v3\n', append: true } },
        { fillChecklist: true },
      ],
    },
  },
};

const stateOf = (ws: Workspace) =>
  JSON.parse(ws.read('agent-task/.switchyard/tasks/g/a.json')) as Record<string, unknown>;

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('a task keeps the isolation mode it started with (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('started outside git, resumed after `git init`: it finishes in the shared workspace, no empty worktree', async () => {
    const ws = new Workspace();
    ws.catalog(blockThenAppend);
    ws.task('g/a', { files: ['src/a.js'] });
    const first = await runInProcess(ws);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    expect(stateOf(ws).isolationMode).toBe('none');
    expect(ws.read('src/a.js')).toBe('v1\n');
    // The workspace becomes a repository; the task's work so far is uncommitted in it.
    writeFileSync(ws.path('.gitignore'), 'agent-task/\n.catalog.json\n.scenario-*\n');
    git(ws.dir, 'init', '-q', '-b', 'main');
    git(ws.dir, 'config', 'user.name', 'Test');
    git(ws.dir, 'config', 'user.email', 'test@example.com');
    git(ws.dir, 'add', '.gitignore', 'switchyard.config.json');
    git(ws.dir, 'commit', '-qm', 'init');
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(/shared workspace: g\/a \(started without a worktree/);
    let pid: number | undefined;
    let exited = false;
    const retry = runCli(
      ['retry', 'g/a', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
      { onSpawn: (p) => (pid = p) },
    ).finally(() => (exited = true));
    try {
      await until(() => prompts(ws, 'g/a', 'worker').length === 3, 'the resumed worker');
      expect(prompts(ws, 'g/a', 'worker')[2]).not.toMatch(/worktrees\/g\/a/);
      const result = await retry;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/g\/a: started in the shared workspace/);
    } finally {
      // Only when an assertion failed while the run still waits (it never may after that).
      if (pid && !exited) process.kill(pid, 'SIGKILL');
    }
    const events = ws.events();
    expect(events.filter((e) => e.type === 'task.isolation' && e.step === 'worktree')).toEqual([]);
    // The worker's change is whole in the source tree (no commit: it never had a worktree).
    expect(ws.read('src/a.js')).toBe('v1\nv3\n');
    expect(sourceStatus(ws)).toBe('?? src/');
    expect(git(ws.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('started in a worktree, resumed under isolation "none": blocked with the fix, its worktree kept', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    ws.catalog(blockThenAppend);
    ws.task('g/a', { files: ['src/a.js'] });
    expect((await runInProcess(ws)).code).toBe(3);
    expect(stateOf(ws).isolationMode).toBe('worktree');
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, isolation: 'none' });
    const result = await cli([
      'retry',
      'g/a',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const blocked = ws.events().filter((e) => e.type === 'task.blocked');
    expect(blocked.at(-1)?.reason).toMatch(
      /started in its own worktree .*this run has isolation "none"/,
    );
    expect(prompts(ws, 'g/a', 'worker')).toHaveLength(2);
    expect(readIf(worktreeFile(ws, 'g/a', 'src/a.js')!)).toBe('v1\n');
    expect(ws.read('src/a.js')).toBe('a0\n');
  });
});
