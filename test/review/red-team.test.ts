import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';
import { runEngine } from '../engine/harness.js';

const approve = { review: 'Verdict: APPROVED\n' };
const plan2 = [
  '---',
  'max_plan_loops: 3',
  '---',
  '# Follow-up',
  '',
  '## Modified Files Summary',
  '',
  '- src/a.ts',
  '',
  '## Implementation Checklist',
  '',
  '- [ ] reject an empty input',
  '',
].join('\n');
const breakIt = [
  'Verdict: CHANGES_REQUESTED',
  '',
  '- [CRITICAL] `parse("")` throws a TypeError: no test covers the empty input',
  '',
].join('\n');

/** Adds `review: red-team` to the PLAN's front matter (the workspace helper writes the rest). */
function redTeamPlan(ws: Workspace, id: string): void {
  const file = ws.task(id, { files: ['src/a.ts'] });
  writeFileSync(file, readFileSync(file, 'utf8').replace('---\n#', 'review: red-team\n---\n#'));
}

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts); git
// and the agents are real processes.
describe('red-team review (in process)', { timeout: 60_000 }, () => {
  it('runs after the review approved, on another agent family; its CHANGES_REQUESTED starts plan loop 2', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        // Family A: the worker, and (another target of it) the official review.
        a: {
          agent: 'claude-code',
          scenario: { steps: [{ fillChecklist: true }] },
        },
        r: {
          agent: 'claude-code',
          scenario: { cases: [{ when: { role: 'review' }, steps: [approve] }] },
        },
        // Family B: only the red-team review may pick it.
        b: {
          agent: 'codex',
          scenario: {
            cases: [
              {
                when: { role: 'redteam', attempt: 1 },
                steps: [{ review: breakIt, nextPlan: plan2 }],
              },
              { when: { role: 'redteam' }, steps: [approve] },
            ],
            steps: [{ say: 'a worker stage must never run on this target' }],
          },
        },
      },
      ['a'],
      // The official review never runs on the worker's own target while it has another.
      ['a', 'r', 'b'],
    );
    redTeamPlan(ws, 'g/risky');
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    const started = events.filter((e) => e.type === 'attempt.started');
    expect(started.map((e) => `${e.role}:${e.planLoop}:${e.target}:${e.agent}`)).toEqual([
      'worker:1:a:claude-code',
      'review:1:r:claude-code',
      'redteam:1:b:codex',
      'worker:2:a:claude-code',
      'review:2:r:claude-code',
      'redteam:2:b:codex',
    ]);
    // The red-team attempt's locator names its target and role.
    const redTeam = started.find((e) => e.role === 'redteam')!;
    const locator = JSON.parse(
      readFileSync(join(String(redTeam.attemptDir), 'locator.json'), 'utf8'),
    );
    expect(locator).toMatchObject({ targetId: 'b', agent: 'codex', role: 'redteam' });
    // The red-team prompt (the argv's last element) asks it to break the change, on top of
    // the review contract.
    const prompt = String(locator.runtime.argv.at(-1));
    expect(prompt).toContain('CODE_REVIEW-1.red-team.md');
    expect(prompt).toContain('## Red-team review');
    expect(prompt).toContain('Try to break it');
    expect(events.filter((e) => e.type === 'task.plan-loop')).toEqual([
      expect.objectContaining({ task: 'g/risky', planLoop: 2 }),
    ]);
    const archived = 'agent-task/archive/g/risky';
    // Both reviews of both loops are kept; the packet cites the red-team review's finding.
    for (const f of ['CODE_REVIEW-1.md', 'CODE_REVIEW-1.red-team.md', 'CODE_REVIEW-2.red-team.md'])
      expect(ws.exists(archived, f), f).toBe(true);
    const packet = ws.read(archived, 'PLAN-2.md');
    expect(packet).toContain('### [CRITICAL] parse("") throws a TypeError');
    expect(packet).toContain('- source: CODE_REVIEW-1.red-team.md:3');
  });

  it('blocks with a clear reason when no review candidate is of another agent family', async () => {
    const ws = new Workspace();
    const review = { when: { role: 'review' }, steps: [approve] };
    ws.catalog({
      a: { agent: 'claude-code', scenario: { cases: [review], steps: [{ fillChecklist: true }] } },
      c: { agent: 'claude-code', scenario: { cases: [review], steps: [{ fillChecklist: true }] } },
    });
    redTeamPlan(ws, 'g/alone');
    // The dry run says so first, as an error: nothing is paid for a review that cannot run.
    const dry = await runInProcess(ws, ['--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(2);
    const report = JSON.parse(dry.stdout);
    expect(report.tasks[0].stages.redteam).toMatchObject({ selected: null, candidates: [] });
    expect(report.problems).toMatchObject([
      {
        severity: 'error',
        message: expect.stringContaining(
          "the red-team review needs a review candidate of another agent family than the worker's (a: claude-code), and route cloud-G01 has none",
        ),
      },
    ]);
    // The live run blocks it before paying for a worker and a review it could not finish.
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const events = result.events;
    expect(events.filter((e) => e.type === 'attempt.started')).toEqual([]);
    const blocked = events.find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({ task: 'g/alone', stage: 'redteam' });
    expect(String(blocked?.reason)).toContain(
      "the red-team review needs a review candidate of another agent family than the worker's (claude-code), and route cloud-G01 has none, so no agent was started",
    );
    expect(blocked?.evidence).toEqual([
      'worker candidate a: agent claude-code',
      'worker candidate c: agent claude-code',
      'review candidate a: agent claude-code',
      'review candidate c: agent claude-code',
    ]);
    expect(ws.exists('agent-task/archive/g/alone')).toBe(false);
  });
});
