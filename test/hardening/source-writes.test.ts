import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, prompts, sourceStatus } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

/**
 * Agents that write where they may not: into the source checkout (through the task folder's
 * absolute path, or straight to a file of the repository) and, in the worktree, a hard link to
 * a file outside. Each attempt's changes to the source are put back at once and sent to the
 * worker as a correction; the user's own uncommitted edits from before stay untouched; the
 * hard link is refused like a symbolic link out of the worktree.
 */
describe('hostile agents writing outside their worktree (real git, fake agents)', {
  timeout: 240_000,
}, () => {
  it('worktree isolation: source writes are put back and corrected, a hard link out is refused', async () => {
    const outside = join(realpathSync(mkdtempSync(join(tmpdir(), 'sy-outside-'))), 'secret.txt');
    writeFileSync(outside, 'outside secret\n');
    const ws = gitWorkspace({
      'README.md': '# project\n',
      'notes.md': 'notes\n',
      'src/a.js': 'a0\n',
    });
    // The user's own work in progress, from before the run.
    writeFileSync(ws.path('notes.md'), 'notes, edited by the user\n');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: 'a1\n' } },
                // Into the source: through the task folder's path, and straight to a new file.
                {
                  write: {
                    path: '${SWITCHYARD_TASK_DIR}/../../../README.md',
                    content: 'hijacked\n',
                  },
                },
                { write: { path: `${ws.dir}/src/escaped.js`, content: 'escaped\n' } },
                { write: { path: `${ws.dir}/notes.md`, content: 'the agent was here\n' } },
                { fillChecklist: true },
              ],
            },
            {
              when: { role: 'worker', attempt: 2 },
              steps: [
                { link: { target: outside, path: 'src/a.js', hard: true } },
                { fillChecklist: true },
              ],
            },
          ],
          // Told, the worker replaces the link by a file of its own.
          steps: [
            { remove: 'src/a.js' },
            { write: { path: 'src/a.js', content: 'a3\n' } },
            { fillChecklist: true },
          ],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(readFileSync(outside, 'utf8')).toBe('outside secret\n');
    // Attempt 1's writes into the source were put back at once, and the worker was told.
    const changed = ws.events().filter((e) => e.type === 'attempt.source-changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ task: 'g/a', role: 'worker', restored: true });
    expect(changed[0]!.files).toEqual(['README.md', 'notes.md', 'src/escaped.js']);
    expect(result.stdout).toMatch(/source\s+g\/a worker: .*put back/);
    const workerPrompts = prompts(ws, 'g/a', 'worker');
    expect(workerPrompts[1]).toMatch(/you changed files of the source checkout .*README\.md/);
    // Attempt 2's hard link to a file outside was refused like a symbolic link out.
    const violation = ws.events().find((e) => e.step === 'writeset-violation');
    expect(violation?.files).toEqual(['src/a.js']);
    expect(violation?.detail).toMatch(/links out of your worktree are refused \(src\/a\.js/);
    // Only the worker's real change landed; the source holds the user's edit and nothing else.
    expect(git(ws.dir, 'show', 'main:src/a.js')).toBe('a3');
    expect(git(ws.dir, 'log', '--format=%B', 'main')).not.toContain('outside secret');
    expect(ws.read('README.md')).toBe('# project\n');
    expect(ws.exists('src/escaped.js')).toBe(false);
    expect(ws.read('notes.md')).toBe('notes, edited by the user\n');
    expect(sourceStatus(ws)).toBe('M notes.md');
    // Nothing is lost: the agent's versions are kept with its attempt.
    expect(readFileSync(join(String(changed[0]!.keptIn), 'README.md'), 'utf8')).toBe('hijacked\n');
  });

  it('isolation "none": a write outside every running task’s write set is put back and corrected', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'src/other.js': 'other\n' });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, isolation: 'none' });
    git(ws.dir, 'commit', '-qam', 'isolation none');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: 'a1\n' } },
                { write: { path: 'src/other.js', content: 'changed by the agent\n' } },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'a2\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const changed = ws.events().filter((e) => e.type === 'attempt.source-changed');
    expect(changed.map((e) => e.files)).toEqual([['src/other.js']]);
    expect(ws.read('src/other.js')).toBe('other\n');
    expect(ws.read('src/a.js')).toBe('a2\n');
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/src\/other\.js/);
  });
});
