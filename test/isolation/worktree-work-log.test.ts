import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, taskCommits } from './git-workspace.js';

const node = process.execPath;

/** The work-log rows of `role`: [event, artifact, attempt, agent/model, result], in order. */
function rows(log: string, role: string): string[][] {
  return log
    .split('\n')
    .map((line) => line.split(/(?<!\\)\|/).map((c) => c.trim()))
    .filter((cells) => cells.length === 11 && cells[5] === role)
    .map((cells) => [cells[2]!, cells[3]!, cells[6]!, cells[7]!, cells[8]!]);
}

describe('the write-set check and the apply write work-log rows (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('logs each check with what it judged: no change, outside files, changed files, the source commit, a rollback', async () => {
    const check = `const fs=require('node:fs');const bad=fs.existsSync('broken')&&fs.readFileSync('src/a.js','utf8')!=='fixed\\n';process.exit(bad?1:0);`;
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'check.cjs': check });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, writeSet: 'revert-outside' });
    git(ws.dir, 'commit', '-qam', 'config');
    const base = git(ws.dir, 'rev-parse', 'HEAD');
    writeFileSync(ws.path('broken'), 'user file\n');
    const write = (content: string) => ({ write: { path: 'src/a.js', content } });
    ws.catalog({
      t: {
        scenario: {
          cases: [
            { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
            { when: { role: 'worker', attempt: 1 }, steps: [{ fillChecklist: true }] },
            {
              when: { role: 'worker', attempt: 2 },
              steps: [
                write('v2\n'),
                { write: { path: 'src/sneaky.js', content: 'x\n' } },
                { fillChecklist: true },
              ],
            },
            {
              when: { role: 'worker', attempt: 3 },
              steps: [write('v3\n'), { fillChecklist: true }],
            },
          ],
          steps: [write('fixed\n'), { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', {
      files: ['src/a.js'],
      done: { command: `${node} check.cjs`, assertion: 'exit code 0' },
    });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const log = ws.read('agent-task/archive/g/work_log_1.log');
    const diff = `git diff ${base.slice(0, 12)}`;
    const finished = (role: string) => rows(log, role).filter((r) => r[0] === 'FINISH');
    expect(finished('writeset')).toEqual([
      ['FINISH', 'g/a/no change', '1', diff, 'writeset-violated'],
      ['FINISH', 'g/a/outside the write set: src/sneaky.js', '2', diff, 'writeset-violated'],
      // The attempt column counts consecutive checks: a pass resets it.
      ['FINISH', 'g/a/changed: src/a.js', '3', diff, 'success'],
      ['FINISH', 'g/a/changed: src/a.js', '1', diff, 'success'],
    ]);
    const rolledBack = ws.events().find((e) => e.step === 'rolled-back')!.commit as string;
    const [commit] = taskCommits(ws);
    expect(finished('apply')).toEqual([
      ['FINISH', `g/a/rolled back ${rolledBack}`, '1', 'git apply onto main', 'rolled-back'],
      ['FINISH', `g/a/commit ${commit!.sha}`, '2', 'git apply onto main', 'success'],
    ]);
    // Every START has its FINISH (same artifact, attempt and locator); the locator is the evidence.
    for (const role of ['writeset', 'apply'])
      expect(rows(log, role).filter((r) => r[0] === 'START')).toHaveLength(finished(role).length);
    const locator = log.split('\n').find((l) => l.includes(`commit ${commit!.sha}`))!;
    expect(locator).toMatch(/agent-task\/\.switchyard\/gates\/g\/a\/apply\.\d+\.\w+\.json \|$/);
  });
});
