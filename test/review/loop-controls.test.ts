import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runEngine, workLogText } from '../engine/harness.js';

const plan2 =
  '## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] again\n';

describe('plan loop controls (in process)', { timeout: 60_000 }, () => {
  it('says "plan loop N of M" and seals the task incomplete at the cap, never archived', async () => {
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
                    'Verdict: CHANGES_REQUESTED\n\n- [CRITICAL] the sum is wrong\n- [MINOR] naming\n',
                  nextPlan: plan2,
                },
              ],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/capped', { files: ['src/a.ts'], maxPlanLoops: 2 });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toContain(
      'review 2 requested changes but max_plan_loops (2) is reached: sealed incomplete at plan loop 2 of 2',
    );
    // Never archived as done; the folder carries the open findings.
    expect(ws.exists('agent-task/archive/g/capped')).toBe(false);
    expect(ws.exists('agent-task/g/capped/complete.log')).toBe(false);
    const notes = ws.read('agent-task/g/capped/BLOCKING_NOTES.md');
    expect(notes).toContain('plan loop 2 of 2 ended with changes requested');
    expect(notes).toContain('- CODE_REVIEW-2.md:3: [CRITICAL] the sum is wrong');
    expect(notes).toContain('- CODE_REVIEW-2.md:4: [MINOR] naming');
    const blocked = result.events.find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({
      stage: 'plan-loop-cap',
      evidence: [
        'CODE_REVIEW-2.md:3: [CRITICAL] the sum is wrong',
        'CODE_REVIEW-2.md:4: [MINOR] naming',
      ],
    });
    // The next plan is ready as a packet for a retry with a higher cap.
    expect(ws.read('agent-task/g/capped/PLAN-3.md')).toContain('### [CRITICAL] the sum is wrong');

    // Prompts and the work log say "plan loop N of M".
    const attempts = ws.path('agent-task/.switchyard/attempts');
    const prompts = readdirSync(attempts)
      .sort()
      .map((a) => readFileSync(join(attempts, a, 'prompt.md'), 'utf8'));
    expect(prompts.filter((p) => p.includes('plan loop 1 of 2.'))).toHaveLength(2);
    expect(prompts.filter((p) => p.includes('plan loop 2 of 2.'))).toHaveLength(2);
    const log = await workLogText(result.store, 'g');
    expect(log).toMatch(/\| g\/capped\/PLAN-2\.md \| 2 of 2 \| worker \|/);
    expect(log).toMatch(/\| g\/capped\/CODE_REVIEW-1\.md \| 1 of 2 \| review \|/);
  });

  it('archives an approved task whose checklist items were left open when no self-check is required: listed in complete.log, shown to the reviewer', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [{ when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] }],
          steps: [
            { write: { path: 'src/a.ts', content: 'export const a = 1;\n' } },
            { say: 'did it' },
          ],
        },
      },
    });
    ws.task('g/half', { files: ['src/a.ts'], checklist: ['first', 'second'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout + result.stdout).toBe(0);
    const log = ws.read('agent-task/archive/g/half/complete.log');
    expect(log).toMatch(
      /checklist items left open: 2 \(no self-check was required of the worker's target; the reviewer saw them\)\n {2}PLAN\.md:\d+: first\n {2}PLAN\.md:\d+: second\n/,
    );
    expect(result.events.some((e) => e.type === 'task.blocked')).toBe(false);
    const review = result.events.find(
      (e) => e.type === 'attempt.started' && e.role === 'review',
    ) as {
      attemptDir: string;
    };
    const prompt = readFileSync(join(review.attemptDir, 'prompt.md'), 'utf8');
    expect(prompt).toContain('## Checklist items left open');
    expect(prompt).toMatch(/- PLAN\.md:\d+: first\n- PLAN\.md:\d+: second/);
  });
});
