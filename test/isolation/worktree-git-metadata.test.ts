import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, prompts, sourceStatus, taskCommits } from './git-workspace.js';

describe('an agent’s changes to git config and hooks are refused (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('detects core.hooksPath in the common config and a hook written through the worktree’s gitdir, puts the repository back, never applies them', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const config = ws.path('.git/config');
    const original = readFileSync(config, 'utf8');
    // The worktree's `.git` file leads to <common>/worktrees/a; its hooks are the common ones.
    const hook = ws.path('.git/worktrees/a/../../hooks/pre-commit');
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
          // The second round changes only its file: the dispatcher undid the rest.
          steps: [{ write: { path: 'src/a.js', content: 'v2\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
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
    expect(correction).toMatch(/the dispatcher has put them back as they were/);
    expect(correction).not.toMatch(/undo them/);
    // Only the work landed; the repository's config is the user's again.
    const [commit] = taskCommits(ws);
    expect(git(ws.dir, 'show', '--name-only', '--format=', commit!.sha)).toBe('src/a.js');
    expect(ws.read('src/a.js')).toBe('v2\n');
    expect(readFileSync(config, 'utf8')).toBe(original);
    expect(existsSync(ws.path('.git/hooks/pre-commit'))).toBe(false);
    expect(sourceStatus(ws)).toBe('');
  });
});
