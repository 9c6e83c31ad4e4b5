import { expect, it } from 'vitest';
import { runCli } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';
import { gitWorkspace, worktreeOf } from './git-workspace.js';

// `clean` finds the workspace from the current folder upward, as status and run do: from a
// folder of the project it saw no record and no worktree, and said "0 kept" for a kept one.
it('clean run from a folder inside the workspace sees its worktrees', {
  timeout: 120_000,
}, async () => {
  const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
  ws.catalog({ t: { scenario: { steps: [{ fault: 'auth' }] } } });
  ws.task('g/a', { files: ['src/a.js'] });
  const run = await runInProcess(ws);
  expect(run.code, run.stdout + run.stderr).toBe(3);
  const kept = worktreeOf(ws, 'g/a');
  expect(kept).toBeDefined();
  const dryRun = await runCli(['clean', '--blocked', '--dry-run', '--json'], {
    cwd: ws.path('src'),
  });
  expect(dryRun.code, dryRun.stderr).toBe(0);
  expect(JSON.parse(dryRun.stdout).removed).toEqual([
    expect.objectContaining({ taskId: 'g/a', path: kept }),
  ]);
});
