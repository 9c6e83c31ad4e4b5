import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, sourceStatus, taskCommits, worktreeOf } from './git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('a worktree set-up that changes files a commit would carry (real git, real npm, fake agents)', {
  timeout: 120_000,
}, () => {
  it('`npm install` writing a package-lock.json blocks the task at its set-up, before any agent, with the file named', async () => {
    // A project that does not commit its lockfile, with a dependency from a folder of its own.
    const ws = gitWorkspace({
      '.gitignore': 'agent-task/\n.catalog.json\n.scenario-*\nnode_modules/\n',
      'vendor/greet/package.json': '{"name":"greet","version":"1.0.0","main":"index.js"}\n',
      'vendor/greet/index.js': 'module.exports = (who) => `hello ${who}`;\n',
      'package.json':
        '{"name":"app","private":true,"dependencies":{"greet":"file:vendor/greet"}}\n',
    });
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      isolation: { setup: [['npm', 'install', '--offline', '--no-audit', '--no-fund']] },
    });
    git(ws.dir, 'add', '-A');
    git(ws.dir, 'commit', '-qm', 'config');
    ws.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [{ write: { path: 'src/a.js', content: 'a\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run([], { env: { npm_config_cache: `${ws.dir}-npm-cache` } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const blocked = ws.events().find((e) => e.type === 'task.blocked' && e.task === 'g/a')!;
    expect(blocked.stage).toBe('setup');
    expect(blocked.reason).toMatch(
      /^the worktree set-up changed files the task's commit would carry: package-lock\.json /,
    );
    expect(blocked.evidence).toContain('changed by the set-up: package-lock.json');
    // No agent was paid to be told the lockfile is outside its write set.
    expect(ws.events().some((e) => e.type === 'attempt.started')).toBe(false);
    // The worktree is kept set up as far as it went, without the file.
    const kept = worktreeOf(ws, 'g/a')!;
    expect(existsSync(join(kept, 'node_modules/greet/index.js'))).toBe(true);
    expect(existsSync(join(kept, 'package-lock.json'))).toBe(false);
    expect(taskCommits(ws).filter((c) => c.task !== '')).toEqual([]);
    expect(sourceStatus(ws)).toBe('');
  });
});
