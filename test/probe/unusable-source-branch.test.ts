import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, Workspace } from '../dispatcher/helpers.js';
import { git, gitWorkspace } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const scenario = {
  cases: [approve],
  steps: [{ write: { path: 'src/a.js', content: 'a\n' } }, { fillChecklist: true }],
};

describe('a git checkout tasks cannot land on (real git, fake agent)', {
  timeout: 120_000,
}, () => {
  it('a repository without a commit: the blocked reason says how to go on', async () => {
    const ws = new Workspace();
    writeFileSync(ws.path('.gitignore'), 'agent-task/\n.catalog.json\n.scenario-*\n');
    git(ws.dir, 'init', '-q', '-b', 'main');
    ws.catalog({ t: { scenario } });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(ws.events().filter((e) => e.type === 'attempt.started')).toEqual([]);
    expect(result.stdout).toMatch(
      /blocked g\/a: SY_GIT: branch main has no commit yet \(make a first commit \(git commit --allow-empty -m init\), or set isolation: "none"\)/,
    );
    const status = await runCli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(/g\/a +\[worker\] SY_GIT: .*make a first commit/);
  });

  it('a detached HEAD: the blocked reason says to check out a branch', async () => {
    const ws = gitWorkspace({ 'src/keep.js': 'k\n' });
    git(ws.dir, 'switch', '-q', '--detach');
    ws.catalog({ t: { scenario } });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toMatch(/blocked g\/a: SY_GIT: .*detached HEAD.*\(check out the branch/);
  });
});
