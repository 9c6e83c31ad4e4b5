import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, sourceStatus, taskCommits, until } from './git-workspace.js';

const node = process.execPath;
// The repository's own vitest, run as a project's `vitest run` (its default include walks
// every folder but node_modules and .git, dot folders too).
const vitest = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('worktrees on a real project: tools run on the source never see them (real git, real vitest)', {
  timeout: 240_000,
}, () => {
  it('a source gate running `vitest run` passes on the first try while another task’s broken test sits in its worktree', async () => {
    const ws = gitWorkspace({
      'test/ok.test.js': "test('ok', () => expect(1).toBe(1));\n",
      '.gitignore': 'agent-task/\n.catalog.json\n.scenario-*\nnode_modules/\n',
    });
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      gates: [{ name: 'vitest', command: [node, vitest, 'run', '--globals'], on: 'source' }],
    });
    git(ws.dir, 'commit', '-qam', 'config');
    const goOn = ws.path('.scenario-b-go-on');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', task: 'g/a' },
              steps: [
                { write: { path: 'test/a.test.js', content: "test('a', () => {});\n" } },
                { fillChecklist: true },
              ],
            },
            {
              when: { role: 'worker', task: 'g/b' },
              steps: [
                {
                  write: {
                    path: 'test/b.test.js',
                    content: "test('b', () => { throw new Error('half-written by g/b'); });\n",
                  },
                },
                { waitFor: goOn },
                { write: { path: 'test/b.test.js', content: "test('b', () => {});\n" } },
                { fillChecklist: true },
              ],
            },
          ],
        },
      },
    });
    ws.task('g/a', { files: ['test/a.test.js'] });
    ws.task('g/b', { files: ['test/b.test.js'] });
    const running = ws.run(['--max-parallel', '2']);
    // g/b's broken test is in its worktree for the whole of g/a's apply and source gate.
    await until(
      () => ws.events().some((e) => e.type === 'task.archived' && e.task === 'g/a'),
      'g/a to land and pass its source gate',
      180_000,
    );
    writeFileSync(goOn, 'go');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const gates = ws.events().filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => [g.task, g.passed])).toEqual([
      ['g/a', true],
      ['g/b', true],
    ]);
    expect(ws.events().filter((e) => e.step === 'rolled-back')).toEqual([]);
    expect(
      taskCommits(ws)
        .filter((c) => c.task !== '')
        .map((c) => c.task)
        .sort(),
    ).toEqual(['g/a', 'g/b']);
    // Worktrees were outside the repository, and nothing of them is left in it.
    const worktrees = ws
      .events()
      .filter((e) => e.type === 'task.isolation' && e.step === 'worktree');
    expect(worktrees).toHaveLength(2);
    for (const w of worktrees) expect(String(w.detail)).not.toContain(ws.dir);
    expect(sourceStatus(ws)).toBe('');
  });
});
