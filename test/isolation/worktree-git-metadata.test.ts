import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, prompts, sourceStatus, taskCommits, until } from './git-workspace.js';

describe('an agent’s changes to git config and hooks are refused (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('detects core.hooksPath in the common config and a hook written through the worktree’s gitdir, never applies them', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const config = ws.path('.git/config');
    const original = readFileSync(config, 'utf8');
    // The worktree's `.git` file leads to <common>/worktrees/a; its hooks are the common ones.
    const hook = ws.path('.git/worktrees/a/../../hooks/pre-commit');
    const goOn = ws.path('.scenario-go-on');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: 'v1\n' } },
                // What `git config core.hooksPath /tmp/evil` run in the worktree does.
                {
                  write: {
                    path: config,
                    content: '[core]\n\thooksPath = /tmp/evil\n',
                    append: true,
                  },
                },
                { write: { path: hook, content: '#!/bin/sh\necho pwned\n' } },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [
            { waitFor: goOn },
            { write: { path: config, content: original } },
            { write: { path: 'src/a.js', content: 'v2\n' } },
            { fillChecklist: true },
          ],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    let exited = false;
    const running = ws.run().finally(() => (exited = true));
    await until(() => prompts(ws, 'g/a', 'worker').length === 2 || exited, 'the correction');
    // The agent cannot delete files; the hook goes the way an agent's `rm` would.
    rmSync(ws.path('.git/hooks/pre-commit'));
    writeFileSync(goOn, 'go');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const violation = ws.events().find((e) => e.step === 'writeset-violation');
    expect(violation?.files).toEqual([
      '.git/config: core.hookspath (added)',
      '.git/hooks/pre-commit (added)',
    ]);
    const correction = prompts(ws, 'g/a', 'worker')[1]!;
    expect(correction).toMatch(
      /changes to git metadata are refused \(\.git\/config: core\.hookspath \(added\)/,
    );
    expect(correction).toMatch(/undo them/);
    // Only the work landed; the repository's config is the user's again.
    const [commit] = taskCommits(ws);
    expect(git(ws.dir, 'show', '--name-only', '--format=', commit!.sha)).toBe('src/a.js');
    expect(ws.read('src/a.js')).toBe('v2\n');
    expect(readFileSync(config, 'utf8')).toBe(original);
    expect(sourceStatus(ws)).toBe('');
  });
});
