import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../engine/cli-in-process.js';

import {
  git,
  gitWorkspace,
  readIf,
  sourceStatus,
  taskCommits,
  until,
  worktreeFile,
} from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('the user checks out another branch while a task runs (real git, fake agent)', {
  timeout: 120_000,
}, () => {
  it('the apply waits, status says to switch back, and the task lands on its branch only', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const goOn = ws.path('.scenario-go-on');
    ws.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [
            { write: { path: 'src/a.js', content: 'task\n' } },
            { waitFor: goOn },
            { fillChecklist: true },
          ],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const running = ws.run();
    await until(
      () => readIf(worktreeFile(ws, 'g/a', 'src/a.js') ?? '') === 'task\n',
      'the worker to write',
    );
    git(ws.dir, 'switch', '-q', '-c', 'feature');
    writeFileSync(goOn, 'go');
    await until(
      () => ws.events().some((e) => e.type === 'task.waiting' && e.reason === 'apply'),
      'the apply to wait',
    );
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(
      /g\/a .*the apply to main waits: the source checkout is on feature, not main; switch back to main \(git switch main\) and it goes on/,
    );
    expect(status.stdout).not.toMatch(/commit, stash or revert/);
    git(ws.dir, 'switch', '-q', 'main');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(taskCommits(ws).map((c) => c.task)).toEqual(['g/a']);
    expect(git(ws.dir, 'rev-parse', 'feature')).toBe(git(ws.dir, 'rev-parse', 'main~1'));
    expect(ws.read('src/a.js')).toBe('task\n');
    expect(sourceStatus(ws)).toBe('');
  });
});
