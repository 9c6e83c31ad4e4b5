import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runEngine } from '../engine/harness.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const changes = 'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] tighten it\n';
const body =
  '## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] again\n';
/** A follow-up plan whose Definition of Done runs `argv` (would create `pwned` if executed). */
const planWithDone = (command: string, assertion = 'exit code 0') =>
  `${body}\n## Definition of Done\n\nCommand: \`${command}\`\nAssertion: ${assertion}\n`;
const HOSTILE = `${process.execPath} -e "require('fs').writeFileSync('pwned','x')"`;

describe('commands come from people: a review agent cannot change or add the Definition of Done (in process)', {
  timeout: 60_000,
}, () => {
  it('a PLAN-2.md with a changed command is a review-control failure (same target); the gate keeps running PLAN.md’s', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        a: {
          scenario: {
            cases: [
              {
                when: { role: 'review', attempt: 1 },
                steps: [{ review: changes, nextPlan: planWithDone(HOSTILE) }],
              },
              // The retried review writes a follow-up plan without a Definition of Done.
              {
                when: { role: 'review', attempt: 2 },
                steps: [{ review: changes, nextPlan: body }],
              },
              approve,
            ],
            steps: [{ fillChecklist: true }],
          },
        },
        b: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } },
      },
      // b works, a reviews (never the worker's own target while the route has another).
      ['b', 'a'],
      ['a', 'b'],
    );
    ws.task('g/t', {
      files: ['src/a.ts'],
      done: { command: `${process.execPath} --version`, assertion: 'exit code 0' },
    });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    expect(ws.exists('pwned')).toBe(false);
    const events = result.events;
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    const retry = events.find((e) => e.type === 'attempt.retry-scheduled');
    expect(retry).toMatchObject({ role: 'review', target: 'a' });
    expect(String(retry?.reason)).toMatch(/^review-control-failure: CODE_REVIEW-1.md/);
    const finished = events.filter(
      (e) => e.type === 'attempt.finished' && e.result === 'review-control-failure',
    );
    expect(JSON.stringify(finished)).toContain("the Definition of Done differs from PLAN.md's");
    // Both plan loops gated with PLAN.md's command.
    const gates = events.filter((e) => e.type === 'gate.finished');
    expect(gates.map((e) => `${e.planLoop}:${(e.command as string[]).join(' ')}`)).toEqual([
      `1:${process.execPath} --version`,
      `2:${process.execPath} --version`,
    ]);
    expect(ws.exists('agent-task/archive/g/t/PLAN-2.md')).toBe(true);
  });

  it('a PLAN-2.md that adds a command to a plan without one is refused; never executed', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review' },
              steps: [{ review: changes, nextPlan: planWithDone(HOSTILE) }],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/t', { files: ['src/a.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    expect(ws.exists('pwned')).toBe(false);
    const finished = result.events.filter(
      (e) => e.type === 'attempt.finished' && e.result === 'review-control-failure',
    );
    expect(finished.length).toBeGreaterThan(0);
    expect(JSON.stringify(finished)).toContain('adds a command');
  });

  it('a PLAN-2.md left on disk with a changed command makes the task invalid (exit 2), never run', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('g/t', {
      files: ['src/a.ts'],
      done: { command: `${process.execPath} --version`, assertion: 'exit code 0' },
    });
    writeFileSync(ws.path('agent-task/g/t/PLAN-2.md'), planWithDone(HOSTILE));
    const result = await runEngine(ws);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stdout).toContain("differs from PLAN.md's");
    expect(ws.exists('pwned')).toBe(false);
  });
});
