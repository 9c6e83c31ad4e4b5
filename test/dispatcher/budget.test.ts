import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('switchyard run: budgets and self-check (fake agents, in process)', {
  timeout: 60_000,
}, () => {
  it('blocks a task after 10 consecutive failures while independent tasks finish (exit 3)', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            {
              when: { task: 'g/x' },
              steps: [{ print: 'fatal: cannot build', stream: 'stderr' }, { exit: 2 }],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/x', { files: ['src/x.ts'] });
    ws.task('g/y', { files: ['src/y.ts'] });
    ws.task('g/z', { files: ['src/z.ts'], dependsOn: ['x'] });
    // Shares a file with g/x: the blocked task keeps its claim, so this one waits too.
    ws.task('g/xz', { files: ['src/x.ts'] });
    const result = await runEngine(ws);
    const { events } = result;
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toContain(
      'blocked g/x: 10 consecutive failures in the worker stage (last: generic-error on a)',
    );
    expect(result.stdout).toMatch(/blocked g\/z: waits on g\/x/);
    expect(result.stdout).toContain(
      'blocked g/xz: waits for src/x.ts, claimed by g/x (10 consecutive failures',
    );
    expect(ws.exists('agent-task/archive/g/y/complete.log')).toBe(true);
    expect(events.filter((e) => e.type === 'attempt.started' && e.task === 'g/x')).toHaveLength(10);
    expect(events.some((e) => e.type === 'attempt.started' && e.task === 'g/z')).toBe(false);
    // Failed attempts are kept as evidence; the group log stays until the group is done.
    expect(ws.attempts()).toHaveLength(10);
    expect(await result.store.workLog.read('g')).not.toHaveLength(0);
    const blocked = events.find((e) => e.type === 'task.blocked');
    expect(blocked?.evidence).toEqual(['fatal: cannot build']);
    // the count is kept with the block, for the escalation question to read
    expect((await result.store.tasks.get('g/x'))?.value.blocked?.consecutiveFailures).toBe(10);
  });

  it('blocks instead of starting a new context when the target cannot resume one', async () => {
    const ws = new Workspace();
    ws.catalog({
      s: { selfcheck: true, scenario: { cases: [approve], steps: [{ say: 'did something' }] } },
    });
    ws.task('g/nores', { files: ['src/n.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toContain('target s cannot resume its native context');
    expect(result.events.filter((e) => e.type === 'attempt.started').map((e) => e.role)).toEqual([
      'worker',
      'selfcheck',
    ]);
  });
});

describe('switchyard run: a self-check resumed in its native context (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('retries an incomplete self-check by resuming the same native context', async () => {
    const ws = new Workspace();
    ws.catalog({
      s: {
        selfcheck: true,
        resume: true,
        native: 'claude-code',
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker' }, steps: [{ say: 'implemented, checklist not ticked yet' }] },
            {
              when: { role: 'selfcheck', resumed: true, attempt: 2 },
              steps: [{ fillChecklist: true }],
            },
          ],
          steps: [{ say: 'looked at it' }],
        },
      },
    });
    ws.task('g/sc', { files: ['src/s.ts'], checklist: ['parse', 'test'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const roles = ws
      .events()
      .filter((e) => e.type === 'attempt.started')
      .map((e) => e.role);
    expect(roles).toEqual(['worker', 'selfcheck', 'selfcheck', 'review']);
    expect(ws.read('agent-task/archive/g/sc/PLAN.md')).toContain('- [x] test');
  });
});
