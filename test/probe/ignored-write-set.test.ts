import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';

import { gitWorkspace, sourceStatus, taskCommits } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('a write set that names a file git ignores (real git, fake agent)', {
  timeout: 120_000,
}, () => {
  it('blocks after the first worker run with the reason, instead of "no change was made" ten times or landing half the task', async () => {
    const ws = gitWorkspace({
      'src/a.js': 'a0\n',
      '.gitignore': 'agent-task/\n.catalog.json\n.scenario-*\ndist/\n',
    });
    ws.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [
            { write: { path: 'src/a.js', content: 'a1\n' } },
            { write: { path: 'dist/out.js', content: 'built\n' } },
            { fillChecklist: true },
          ],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js', 'dist/out.js'] });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const workers = ws.events().filter((e) => e.type === 'attempt.finished' && e.role === 'worker');
    expect(workers).toHaveLength(1);
    const blocked = ws.events().find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({ task: 'g/a', stage: 'writeset' });
    expect(blocked?.reason).toMatch(/ignored by git.*dist\/out\.js/);
    // Nothing landed: not the tracked half either.
    expect(taskCommits(ws)).toEqual([]);
    expect(ws.read('src/a.js')).toBe('a0\n');
    expect(sourceStatus(ws)).toBe('');
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(/g\/a +\[writeset\] .*ignored by git.*dist\/out\.js/);
  });
});
