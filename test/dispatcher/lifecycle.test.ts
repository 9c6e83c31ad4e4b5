import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { indexOfEvent, Workspace } from './helpers.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};

describe('switchyard run: lifecycle rules (fake agents, in process)', { timeout: 60_000 }, () => {
  it('sends a failed definition-of-done gate back to the worker as a correction', async () => {
    const ws = new Workspace();
    const check = `const fs = require('node:fs'); const ok = fs.existsSync('out.txt') && fs.readFileSync('out.txt', 'utf8') === 'good'; console.log(ok ? 'PASS' : 'FAIL: out.txt is not good'); process.exit(ok ? 0 : 1);`;
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [{ write: { path: 'out.txt', content: 'bad' } }, { fillChecklist: true }],
            },
          ],
          steps: [{ write: { path: 'out.txt', content: 'good' } }, { fillChecklist: true }],
        },
      },
    });
    writeFileSync(ws.path('check.cjs'), check);
    ws.task('g/gated', {
      files: ['out.txt'],
      done: { command: `${process.execPath} check.cjs`, assertion: 'exit code 0' },
    });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const gates = result.events.filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    expect(gates[0]).toMatchObject({
      detail: 'expected exit code 0, got exit code 1',
      assertion: 'exit code 0',
      output: expect.arrayContaining([expect.stringContaining('FAIL: out.txt is not good')]),
    });
    expect(result.stdout).toContain(
      'failed (expected exit code 0, got exit code 1); back to the worker',
    );
    const workers = result.events.filter(
      (e) => e.type === 'attempt.started' && e.role === 'worker',
    );
    expect(workers).toHaveLength(2);
    expect(readFileSync(ws.path('out.txt'), 'utf8')).toBe('good');
  });

  it('runs a review loop: CHANGES_REQUESTED with PLAN-2.md starts plan loop 2, then archives', async () => {
    const ws = new Workspace();
    const plan2 =
      '# follow-up\n\n## Modified Files Summary\n\n- src/a.ts\n- src/a.test.ts\n\n## Implementation Checklist\n\n- [ ] fix the off-by-one\n';
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review', attempt: 1 },
              steps: [
                {
                  review: 'Verdict: CHANGES_REQUESTED\n\n- [CRITICAL] off-by-one in the loop\n',
                  nextPlan: plan2,
                },
              ],
            },
            approve,
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/loop', { files: ['src/a.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/review\s+g\/loop loop 1: CHANGES_REQUESTED \(1 critical/);
    expect(result.stdout).toMatch(/plan loop\s+g\/loop -> loop 2/);
    for (const f of [
      'PLAN.md',
      'PLAN-2.md',
      'CODE_REVIEW-1.md',
      'CODE_REVIEW-2.md',
      'complete.log',
    ]) {
      expect(ws.exists('agent-task/archive/g/loop', f)).toBe(true);
    }
    expect(ws.read('agent-task/archive/g/loop/PLAN-2.md')).toContain('- [x] fix the off-by-one');
    const roles = result.events
      .filter((e) => e.type === 'attempt.started')
      .map((e) => `${e.role}:${e.planLoop}`);
    expect(roles).toEqual(['worker:1', 'review:1', 'worker:2', 'review:2']);
  });

  it('blocks at max_plan_loops with the findings as evidence (exit 3)', async () => {
    const ws = new Workspace();
    const plan2 =
      '## Modified Files Summary\n\n- src/a.ts\n\n## Implementation Checklist\n\n- [ ] again\n';
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review' },
              steps: [
                {
                  review: 'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] split it\n',
                  nextPlan: plan2,
                },
              ],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/capped', { files: ['src/a.ts'], maxPlanLoops: 1 });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toContain(
      'g/capped: review 1 requested changes but max_plan_loops (1) is reached',
    );
    const blocked = result.events.find((e) => e.type === 'task.blocked');
    expect(blocked?.evidence).toEqual(['CODE_REVIEW-1.md:3: [MODERATE] split it']);
  });
});

describe('switchyard run: lifecycle end to end (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('runs tasks in dependency order, serializes claim collisions, archives everything and exits 0', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [approve],
          steps: [{ sleep: 200 }, { fillChecklist: true }, { say: 'done' }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.ts'] });
    ws.task('g/b', { files: ['src/b.ts'], dependsOn: ['a'] });
    ws.task('g/c', { files: ['src/shared.ts', 'src/c.ts'] });
    ws.task('g/d', { files: ['src/shared.ts'] });
    const result = await ws.run(['--max-parallel', '4']);
    expect(result.stderr).toBe('');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Done: 4 task(s) archived');
    for (const t of ['a', 'b', 'c', 'd'])
      expect(ws.exists('agent-task/archive/g', t, 'complete.log')).toBe(true);
    expect(ws.exists('agent-task/g')).toBe(false);
    const log = ws.read('agent-task/archive/g/work_log_1.log');
    // Per task: worker, write-set check (snapshots: no git here), change verification, review.
    expect(log.match(/\| START \|/g)).toHaveLength(16);
    expect(log.match(/\| FINISH \|/g)).toHaveLength(16);

    const events = ws.events();
    const started = (task: string) => indexOfEvent(events, { type: 'attempt.started', task });
    const archived = (task: string) => indexOfEvent(events, { type: 'task.archived', task });
    expect(started('g/b')).toBeGreaterThan(archived('g/a'));
    const [first, second] = started('g/c') < started('g/d') ? ['g/c', 'g/d'] : ['g/d', 'g/c'];
    expect(started(second)).toBeGreaterThan(archived(first));
    expect(events.find((e) => e.type === 'task.waiting' && e.task === second)).toMatchObject({
      reason: 'claim',
      detail: `src/shared.ts held by ${first}`,
    });
    expect(result.stdout).toContain(`${second}: src/shared.ts held by ${first}`);
    expect(events.find((e) => e.type === 'task.waiting' && e.task === 'g/b')).toMatchObject({
      reason: 'dependencies',
      detail: 'waits on g/a',
    });
    // Claims released, successful attempt evidence deleted, every run event recorded.
    expect(JSON.parse(ws.read('agent-task/.switchyard/claims/claims.json')).tasks).toEqual({});
    expect(ws.attempts()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', exitCode: 0 });
  });
});
