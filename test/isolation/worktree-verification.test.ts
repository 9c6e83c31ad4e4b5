import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, prompts, sourceStatus, taskCommits } from './git-workspace.js';

// A node --test style runner: reports as many tests as test files there are where it runs.
const runner = [
  "const fs = require('node:fs');",
  "const n = fs.existsSync('src/a.test.js') ? 1 : 0;",
  'console.log(`ℹ tests ${n}`);',
  'console.log(`ℹ pass ${n}`);',
  "console.log('ℹ fail 0');",
].join('\n');

describe('tests: required judges the worktree’s git diff (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('finds the stub and the missing test in the task’s worktree, then verifies the change', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'runner.cjs': runner });
    const write = (path: string, content: string) => ({ write: { path, content } });
    ws.catalog({
      t: {
        scenario: {
          cases: [
            { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                write('src/a.js', "module.exports = () => { throw new Error('TODO'); };\n"),
                { fillChecklist: true },
              ],
            },
          ],
          steps: [
            write('src/a.js', 'module.exports = (a, b) => a + b;\n'),
            write('src/a.test.js', "require('node:test')('sums', () => {});\n"),
            { fillChecklist: true },
          ],
        },
      },
    });
    const plan = ws.task('g/a', {
      files: ['src/a.js', 'src/a.test.js'],
      done: { command: `${process.execPath} runner.cjs`, assertion: 'exit code 0' },
    });
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('---\n#', 'tests: required\n---\n#'));
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const gates = ws.events().filter((e) => e.type === 'gate.finished' && e.task === 'g/a');
    // The task's DoD in its worktree twice (fails on findings, then passes), then on the source.
    expect(gates.map((g) => g.passed)).toEqual([false, true, true]);
    const correction = prompts(ws, 'g/a', 'worker')[1]!;
    expect(correction).toMatch(/\[CRITICAL\] stub left in the change: src\/a\.js:1/);
    expect(correction).toContain(
      '[CRITICAL] tests: required, but the change adds or changes no test file (changed: src/a.js)',
    );
    const [commit] = taskCommits(ws);
    expect(git(ws.dir, 'show', '--name-only', '--format=', commit!.sha).split('\n').sort()).toEqual(
      ['src/a.js', 'src/a.test.js'],
    );
    expect(sourceStatus(ws)).toBe('');
  });
});
