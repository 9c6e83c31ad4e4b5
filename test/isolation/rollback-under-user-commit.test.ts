import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, sourceStatus, taskCommits, until } from './git-workspace.js';

const node = process.execPath;
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('the user commits on the source branch while a task’s check runs there (real git, fake agents)', {
  timeout: 120_000,
}, () => {
  it('the failed check cannot be rolled back: the task blocks naming the commit to revert, and later runs still start', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'src/h.js': 'h0\n' });
    const started = ws.path('.scenario-check-started');
    const release = ws.path('.scenario-check-release');
    // The definition of done passes in the worktree; on the source it fails once released.
    writeFileSync(
      ws.path('check.cjs'),
      `const fs = require('node:fs');
if (process.cwd() !== ${JSON.stringify(ws.dir)}) process.exit(0);
fs.writeFileSync(${JSON.stringify(started)}, '');
(function wait() {
  if (fs.existsSync(${JSON.stringify(release)})) { console.log('fails on the source'); process.exit(1); }
  setTimeout(wait, 25);
})();
`,
    );
    git(ws.dir, 'add', '-A');
    git(ws.dir, 'commit', '-qm', 'check');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', task: 'g/b' },
              steps: [{ write: { path: 'src/b.js', content: 'b\n' } }, { fillChecklist: true }],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'task\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', {
      files: ['src/a.js'],
      done: { command: `${node} check.cjs`, assertion: 'exit code 0' },
    });
    const running = ws.run();
    await until(() => existsSync(started), 'the check to run on the source');
    writeFileSync(ws.path('src/h.js'), 'the user\n');
    git(ws.dir, 'commit', '-qam', 'the user’s commit');
    writeFileSync(release, 'go');
    const first = await running;
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const taskCommit = taskCommits(ws).find((c) => c.task === 'g/a')!.sha;
    const blocked = ws.events().find((e) => e.type === 'task.blocked' && e.task === 'g/a')!;
    expect(blocked.reason).toContain(`main has commits on top of ${taskCommit}`);
    expect(blocked.reason).toContain(`git revert ${taskCommit}`);
    // The user's commit is kept on top of it.
    expect(git(ws.dir, 'log', '-1', '--format=%s')).toBe('the user’s commit');

    // The user reverts it as told; the next run starts and lands another task.
    git(ws.dir, 'revert', '--no-edit', taskCommit);
    ws.task('g/b', { files: ['src/b.js'] });
    const next = await ws.run(['--task-group', 'g']);
    // Not refused at its start (exit 1, SY_GIT): only g/a, still blocked, keeps it from 0.
    expect(next.code, next.stdout + next.stderr).toBe(3);
    expect(next.stderr).toBe('');
    expect(ws.events().some((e) => e.type === 'task.archived' && e.task === 'g/b')).toBe(true);
    expect(ws.read('src/b.js')).toBe('b\n');
    expect(ws.read('src/h.js')).toBe('the user\n');
    expect(sourceStatus(ws)).toBe('');
  });
});
