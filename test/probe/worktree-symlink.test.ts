import { mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  git,
  gitWorkspace,
  prompts,
  readIf,
  sourceStatus,
  until,
  worktreeFile,
  worktreeOf,
} from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('an agent-made symlink out of the repository (real git, fake agent)', {
  timeout: 120_000,
}, () => {
  it('is refused with a correction naming it and never reaches the source branch', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'sy-outside-'));
    writeFileSync(join(outside, 'secret'), 'SECRET\n');
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const linked = ws.path('.scenario-linked');
    const unlinked = ws.path('.scenario-unlinked');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: 'a1\n' } },
                { waitFor: linked },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ waitFor: unlinked }, { fillChecklist: true }],
        },
      },
    });
    // The link's path is in the write set: only where it points makes it wrong.
    ws.task('g/a', { files: ['src/a.js', 'src/link.js'] });
    const running = ws.run();
    await until(
      () => readIf(worktreeFile(ws, 'g/a', 'src/a.js') ?? '') === 'a1\n',
      'the worker to write',
    );
    const worktree = worktreeOf(ws, 'g/a')!;
    symlinkSync(join(outside, 'secret'), join(worktree, 'src/link.js'));
    writeFileSync(linked, 'go');
    await Promise.race([
      until(
        () => ws.events().some((e) => e.step === 'writeset-violation'),
        'the write-set check to refuse the link',
      ),
      running.then((r) => {
        throw new Error(`the run ended without refusing the link: ${r.stdout}`);
      }),
    ]);
    unlinkSync(join(worktree, 'src/link.js'));
    writeFileSync(unlinked, 'go');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const violation = ws.events().find((e) => e.step === 'writeset-violation');
    expect(violation?.files).toEqual(['src/link.js']);
    expect(violation?.detail).toMatch(/symbolic link.*outside the repository.*src\/link\.js/);
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/src\/link\.js/);
    // Only the regular file landed; the outside file is untouched.
    expect(git(ws.dir, 'show', '--name-only', '--format=', 'main')).toBe('src/a.js');
    expect(git(ws.dir, 'ls-tree', '-r', '--name-only', 'main')).not.toContain('src/link.js');
    expect(ws.exists('src/link.js')).toBe(false);
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('SECRET\n');
    expect(sourceStatus(ws)).toBe('');
  });
});
