import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';
import { git, gitWorkspace } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const scenario = {
  cases: [approve],
  steps: [{ write: { path: 'src/a.js', content: 'a\n' } }, { fillChecklist: true }],
};

/** The child's git sees no global or system config: no identity (the real one is untouched). */
function noIdentityEnv(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'sy-no-identity-'));
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    EMAIL: '',
  };
}

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('a git checkout tasks cannot land on: refused before any agent starts (real git)', {
  timeout: 120_000,
}, () => {
  it('no identity and no commit: run and dry run name both, with the fix; nothing launched', async () => {
    const ws = new Workspace();
    writeFileSync(ws.path('.gitignore'), 'agent-task/\n.catalog.json\n.scenario-*\n');
    git(ws.dir, 'init', '-q', '-b', 'main');
    ws.catalog({ t: { scenario } });
    ws.task('g/a', { files: ['src/a.js'] });
    const env = noIdentityEnv();

    const run = await runInProcess(ws, [], { env });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(/SY_PREFLIGHT_FAILED: 2 problems found before starting/);
    expect(run.stderr).toMatch(/SY_PREFLIGHT_GIT_IDENTITY .*user\.name and user\.email not set/);
    expect(run.stderr).toContain(
      'fix:  git config --global user.name "Your Name" && git config --global user.email "you@example.com"',
    );
    expect(run.stderr).toMatch(/SY_PREFLIGHT_NO_COMMIT .*branch main .*has no commit yet/);
    expect(run.stderr).toContain(`fix:  git -C ${ws.dir} add -A && git -C ${ws.dir} commit`);
    // Nothing was launched or recorded: no attempt, no session, no worktree.
    expect(ws.events()).toEqual([]);
    expect(ws.exists('agent-task', '.switchyard', 'sessions')).toBe(false);
    expect(ws.exists('agent-task', '.switchyard', 'worktrees')).toBe(false);

    const dry = await runInProcess(ws, ['--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(2);
    const problems = JSON.parse(dry.stdout).problems as { code: string; fix?: string }[];
    expect(problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(['SY_PREFLIGHT_GIT_IDENTITY', 'SY_PREFLIGHT_NO_COMMIT']),
    );
    expect(problems.every((p) => !p.code.startsWith('SY_PREFLIGHT_') || p.fix)).toBe(true);
  });

  it('a detached HEAD: refused with the branch to switch to', async () => {
    const ws = gitWorkspace({ 'src/keep.js': 'k\n' });
    git(ws.dir, 'switch', '-q', '--detach');
    ws.catalog({ t: { scenario } });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/SY_PREFLIGHT_DETACHED_HEAD .*has a detached HEAD/);
    expect(result.stderr).toContain(`fix:  git -C ${ws.dir} switch main`);
    expect(ws.events()).toEqual([]);
  });
});
