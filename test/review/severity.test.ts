import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runEngine } from '../engine/harness.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const plan2 = [
  '---',
  'max_plan_loops: 3',
  '---',
  '# Follow-up',
  '',
  'Some prose the worker does not need.',
  '',
  '## Modified Files Summary',
  '',
  '- src/a.ts',
  '',
  '## Implementation Checklist',
  '',
  '- [ ] fix the sum',
  '',
].join('\n');

describe('review findings by severity (in process)', { timeout: 60_000 }, () => {
  it('archives a minor-only CHANGES_REQUESTED without another worker round, notes in complete.log', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review' },
              steps: [
                {
                  review:
                    'Verdict: CHANGES_REQUESTED\n\n- [MINOR] rename `tmp` to `total`\n- [MINOR] typo in a comment\n',
                  nextPlan: plan2,
                },
              ],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/minor', { files: ['src/a.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    const roles = events.filter((e) => e.type === 'attempt.started').map((e) => e.role);
    expect(roles).toEqual(['worker', 'review']);
    expect(events.find((e) => e.type === 'review.verdict')).toMatchObject({
      verdict: 'CHANGES_REQUESTED',
      disposition: 'approved-with-notes',
      findings: { critical: 0, moderate: 0, minor: 2 },
    });
    expect(events.some((e) => e.type === 'task.plan-loop')).toBe(false);
    const log = ws.read('agent-task/archive/g/minor/complete.log');
    expect(log).toContain('plan loops: 1');
    expect(log).toContain(
      'accepted notes: 2 (CHANGES_REQUESTED with MINOR findings only: approved with notes, no worker round)',
    );
    expect(log).toContain('  CODE_REVIEW-1.md:3: [MINOR] rename tmp to total');
    expect(log).toContain('  CODE_REVIEW-1.md:4: [MINOR] typo in a comment');
    // The unneeded follow-up plan is set aside: the task stays at plan loop 1.
    expect(ws.exists('agent-task/archive/g/minor/PLAN-2.md')).toBe(false);
    expect(ws.exists('agent-task/archive/g/minor/PLAN-2.declined.md')).toBe(true);
  });

  it('sends a CRITICAL finding back as a packet carrying the exact failing output', async () => {
    const ws = new Workspace();
    // A runner that reports a failing test in its summary yet exits 0.
    writeFileSync(
      ws.path('runner.cjs'),
      [
        "console.log(' RUN  v3.2.4 /repo');",
        "console.log(' × src/a.test.ts > sums two numbers 3ms');",
        "console.log('   → expected 4 to be 5 // Object.is equality');",
        "console.log(' Test Files  1 failed (1)');",
        "console.log('      Tests  1 failed | 2 passed (3)');",
      ].join('\n'),
    );
    const review = [
      'Verdict: CHANGES_REQUESTED',
      '',
      '- [CRITICAL] `sum` is off by one: its test fails',
      '',
      '  ```',
      '  FAIL src/a.test.ts > sums two numbers',
      '  AssertionError: expected 4 to be 5',
      '  ```',
      '- [MODERATE] core imports the CLI; rule: ARCHITECTURE.md §Layers',
      '- [MINOR] naming',
      '',
    ].join('\n');
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review', attempt: 1 },
              steps: [{ review, nextPlan: plan2 }],
            },
            approve,
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/crit', {
      files: ['src/a.ts'],
      done: { command: `${process.execPath} runner.cjs`, assertion: 'exit code 0' },
    });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    expect(events.find((e) => e.type === 'review.verdict')).toMatchObject({
      disposition: 'reject',
    });
    const packet = ws.read('agent-task/archive/g/crit/PLAN-2.md');
    expect(packet).toMatch(
      /^---\nmax_plan_loops: 3\n---\n# Correction packet: g\/crit, plan loop 2/,
    );
    expect(packet).toContain('### [CRITICAL] sum is off by one: its test fails');
    expect(packet).toContain('- action: reject: make it build, pass and exist');
    expect(packet).toContain('- source: CODE_REVIEW-1.md:3');
    // The finding's own evidence, verbatim.
    expect(packet).toContain(
      '```\nFAIL src/a.test.ts > sums two numbers\nAssertionError: expected 4 to be 5\n```',
    );
    expect(packet).toContain('### [MODERATE] core imports the CLI; rule: ARCHITECTURE.md §Layers');
    expect(packet).toContain('- rule: ARCHITECTURE.md §Layers');
    // The definition-of-done output's failing lines, exactly as the runner printed them.
    expect(packet).toContain('## Failing output');
    expect(packet).toContain(
      [
        ' × src/a.test.ts > sums two numbers 3ms',
        '   → expected 4 to be 5 // Object.is equality',
        ' Test Files  1 failed (1)',
        '      Tests  1 failed | 2 passed (3)',
      ].join('\n'),
    );
    expect(packet).not.toContain('RUN  v3.2.4');
    // Only the findings to fix and the files involved: no MINOR finding, no prose.
    expect(packet).not.toContain('naming');
    expect(packet).not.toContain('Some prose');
    expect(packet).toContain('## Modified Files Summary\n\n- src/a.ts');
    expect(packet).toContain('- [x] fix the sum');
    expect(ws.read('agent-task/archive/g/crit/PLAN-2.reviewer.md')).toBe(plan2);
    const roles = events
      .filter((e) => e.type === 'attempt.started')
      .map((e) => `${e.role}:${e.planLoop}`);
    expect(roles).toEqual(['worker:1', 'review:1', 'worker:2', 'review:2']);
  });
});
