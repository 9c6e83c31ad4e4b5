import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../dispatcher/helpers.js';
import { git, gitWorkspace, prompts, sourceStatus } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

/** A repository whose tracked `tools/run.sh` is not executable, and a task that may write `src/a.js`. */
function repository(): Workspace {
  const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'tools/run.sh': 'echo hi\n' });
  if (statSync(ws.path('tools/run.sh')).mode & 0o111)
    throw new Error('umask made run.sh executable');
  expect(git(ws.dir, 'ls-files', '-s', 'tools/run.sh')).toMatch(/^100644 /);
  return ws;
}

/** `tools/run.sh` in the source: its mode bits, its content and its mode on `main`. */
function runScript(ws: Workspace) {
  return {
    mode: statSync(ws.path('tools/run.sh')).mode & 0o777,
    content: ws.read('tools/run.sh'),
    committed: git(ws.dir, 'ls-tree', 'main', 'tools/run.sh').split(' ')[0],
  };
}
/** The worker's first attempt writes its file and makes `tools/run.sh` executable; later
 * attempts take `later`; reviews approve. */
function chmodOnFirstAttempt(later: object[]) {
  const first = [
    { write: { path: 'src/a.js', content: 'a1\n' } },
    { chmod: { path: 'tools/run.sh', mode: '755' } },
    { fillChecklist: true },
  ];
  const cases = [approve, { when: { role: 'worker', attempt: 1 }, steps: first }];
  return { t: { scenario: { cases, steps: later } } };
}

const untouched = { mode: 0o644, content: 'echo hi\n', committed: '100644' };

/**
 * A workspace that is a git repository: an agent that only makes a tracked file outside its
 * write set executable (`chmod 755`, no content change: git shows it as `old mode 100644 / new
 * mode 100755` only) is caught like a content change by the check of each isolation mode, the
 * file named, and the mode change never lands.
 */
describe('a mode-only change outside the write set in a git workspace (spawned CLI, fake agents)', {
  timeout: 240_000,
}, () => {
  it('isolation "none": the source guard puts the mode back and corrects the worker, naming the file', async () => {
    const ws = repository();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, isolation: 'none' });
    git(ws.dir, 'commit', '-qam', 'isolation none');
    ws.catalog(
      chmodOnFirstAttempt([
        { write: { path: 'src/a.js', content: 'a2\n' } },
        { fillChecklist: true },
      ]),
    );
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const changed = ws.events().filter((e) => e.type === 'attempt.source-changed');
    expect(changed.map((e) => e.files)).toEqual([['tools/run.sh']]);
    expect(changed[0]).toMatchObject({ task: 'g/a', role: 'worker', restored: true });
    expect(runScript(ws)).toEqual(untouched);
    expect(ws.read('src/a.js')).toBe('a2\n');
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(
      /you changed files of the source checkout .*: tools\/run\.sh; they were put back/,
    );
    expect(sourceStatus(ws)).not.toContain('tools/run.sh');
  });

  it('worktree isolation, revert-outside: the mode change is a write-set violation, reset in the worktree and never committed', async () => {
    const ws = repository();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, writeSet: 'revert-outside' });
    git(ws.dir, 'commit', '-qam', 'config');
    ws.catalog(
      chmodOnFirstAttempt(
        // Told, the worker does not undo the change itself: the reset did.
        [{ write: { path: 'src/a.js', content: 'a2\n' } }, { fillChecklist: true }],
      ),
    );
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const violations = ws.events().filter((e) => e.step === 'writeset-violation');
    expect(violations.map((e) => e.files)).toEqual([['tools/run.sh']]);
    expect(result.stdout).toMatch(/g\/a: files outside/);
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/tools\/run\.sh/);
    // Only the write set landed; the source is clean.
    expect(ws.read('src/a.js')).toBe('a2\n');
    expect(git(ws.dir, 'show', '--name-only', '--format=', 'main')).toBe('src/a.js');
    expect(runScript(ws)).toEqual(untouched);
    expect(sourceStatus(ws)).toBe('');
  });

  it('worktree isolation, correct: the worker is told, undoes the mode change, and only the write set lands', async () => {
    // The default write-set policy ("correct"), the config as the workspace has it.
    const ws = repository();
    ws.catalog(
      chmodOnFirstAttempt([
        { chmod: { path: 'tools/run.sh', mode: '644' } },
        { write: { path: 'src/a.js', content: 'a2\n' } },
        { fillChecklist: true },
      ]),
    );
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const violations = ws.events().filter((e) => e.step === 'writeset-violation');
    expect(violations.map((e) => e.files)).toEqual([['tools/run.sh']]);
    expect(violations[0]!.detail).toMatch(/files outside .*tools\/run\.sh/);
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/tools\/run\.sh/);
    expect(git(ws.dir, 'show', '--name-only', '--format=', 'main')).toBe('src/a.js');
    expect(runScript(ws)).toEqual(untouched);
    expect(sourceStatus(ws)).toBe('');
  });
});
