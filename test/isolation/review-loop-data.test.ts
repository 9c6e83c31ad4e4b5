import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';

import { git, gitWorkspace, prompts, taskCommits } from './git-workspace.js';

const OLD = "// TODO: a human's note from 2019\nmodule.exports = 0;\n";
const write = (path: string, content: string) => ({ write: { path, content } });

/**
 * One run over a git repository (worktree isolation), checking the review loop judges the
 * right data at the right time:
 * - g/old touches a file with a human's old TODO: only the lines the task adds are judged
 *   (its own new TODO goes back as a correction, the old one never does), without a
 *   definition of done; its review's MINOR-only findings go to the fixup target, which
 *   applies them without a worker round before the apply;
 * - g/first blocks (credentials refused twice) holding src/index.js: its claim is released,
 *   so g/second, which shares the file, runs and lands; `switchyard retry g/first` takes the
 *   claim again and meets the apply like any other task (a conflict, then a fresh worktree).
 */
// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('the review loop judges the right data at the right time (real git, fake agents)', {
  timeout: 240_000,
}, () => {
  it('added lines only, fixup before the apply, a blocked task’s claim released and retaken', async () => {
    const ws = gitWorkspace({ 'src/old.js': OLD, 'src/index.js': 'index0\n' });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, review: { fixupTarget: 'fixer' } });
    const minor = 'Verdict: CHANGES_REQUESTED\n\n- [MINOR] name the export `answer`\n';
    ws.catalog(
      {
        t: {
          scenario: {
            cases: [
              { when: { role: 'review', task: 'g/old' }, steps: [{ review: minor }] },
              { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
              {
                when: { role: 'worker', task: 'g/old', attempt: 1 },
                steps: [write('src/old.js', `${OLD}// TODO mine: finish this\n`)],
              },
              {
                when: { role: 'worker', task: 'g/old' },
                steps: [write('src/old.js', `${OLD}module.exports.x = 42;\n`)],
              },
              { when: { role: 'worker', task: 'g/first', attempt: 1 }, steps: [{ fault: 'auth' }] },
              { when: { role: 'worker', task: 'g/first', attempt: 2 }, steps: [{ fault: 'auth' }] },
              {
                when: { role: 'worker', task: 'g/first' },
                steps: [write('src/index.js', 'first\n')],
              },
              {
                when: { role: 'worker', task: 'g/second' },
                steps: [write('src/index.js', 'second\n')],
              },
            ],
            steps: [{ fillChecklist: true }],
          },
        },
        fixer: {
          scenario: { steps: [write('src/old.js', `${OLD}module.exports.answer = 42;\n`)] },
        },
      },
      ['t'],
    );
    ws.task('g/old', { files: ['src/old.js'] });
    ws.task('g/first', { files: ['src/index.js'] });
    ws.task('g/second', { files: ['src/index.js'] });

    const first = await runInProcess(ws);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const events = ws.events();

    // g/old: its own TODO went back once; the human's never counted.
    const oldPrompts = prompts(ws, 'g/old', 'worker');
    expect(oldPrompts).toHaveLength(2);
    expect(oldPrompts[1]).toContain(
      '[CRITICAL] stub left in the change: src/old.js:3: // TODO mine: finish this',
    );
    expect(oldPrompts[1]).not.toContain('src/old.js:1');
    // Its MINOR finding was applied by the fixup target before the apply, no second review.
    const fixups = events.filter((e) => e.type === 'attempt.started' && e.role === 'fixup');
    expect(fixups).toMatchObject([{ task: 'g/old', target: 'fixer' }]);
    expect(prompts(ws, 'g/old', 'fixup')[0]).toContain(
      'CODE_REVIEW-1.md:3: name the export answer',
    );
    expect(prompts(ws, 'g/old', 'review')).toHaveLength(1);
    expect(ws.read('src/old.js')).toBe(`${OLD}module.exports.answer = 42;\n`);
    expect(ws.read('agent-task/archive/g/old/complete.log')).toMatch(
      /minor findings applied by the fixup stage \(attempt \S+ on fixer\), then checked again/,
    );
    expect(ws.read('agent-task/g/WORK_LOG.md')).toMatch(
      /\| fixup \| 1 \| claude-code\/model-fixer \| success \|/,
    );

    // g/first blocked and let go of src/index.js: g/second ran and landed meanwhile.
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'task.isolation', task: 'g/first', step: 'claim-released' }),
    );
    expect(ws.exists('agent-task/archive/g/second/complete.log')).toBe(true);
    expect(ws.read('src/index.js')).toBe('second\n');
    expect(JSON.parse(ws.read('agent-task/.switchyard/claims/claims.json')).tasks).toEqual({});

    // The retry takes the claim again; its worktree's base is older than g/second's commit.
    const retry = await cli([
      'retry',
      'g/first',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
    ]);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    const conflict = ws
      .events()
      .find((e) => e.type === 'task.isolation' && e.task === 'g/first' && e.step === 'conflict');
    expect(conflict).toMatchObject({ files: ['src/index.js'] });
    expect(ws.read('src/index.js')).toBe('first\n');
    expect(taskCommits(ws)[0]?.task).toBe('g/first');
    expect(
      taskCommits(ws)
        .map((c) => c.task)
        .sort(),
    ).toEqual(['g/first', 'g/old', 'g/second']);
    expect(git(ws.dir, 'status', '--porcelain', '--', 'src')).toBe('');
  });
});
