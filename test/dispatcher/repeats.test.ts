import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { gitWorkspace, sourceStatus } from '../isolation/git-workspace.js';
import { APPROVE } from './helpers.js';

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('an agent that repeats itself (real git, fake agent)', { timeout: 120_000 }, () => {
  it('three identical empty diffs block and escalate; the budget of 10 is not spent', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    // Every worker attempt "succeeds" without changing a file.
    ws.catalog({ t: { scenario: { cases: [APPROVE], steps: [{ fillChecklist: true }] } } });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const workers = ws
      .events()
      .filter((e) => e.type === 'attempt.started' && e.task === 'g/a' && e.role === 'worker');
    expect(workers).toHaveLength(3);
    const blocked = ws.events().find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({
      task: 'g/a',
      stage: 'writeset',
      reason: expect.stringMatching(
        /^the agent repeats itself: the same writeset correction 3 times in a row \(no change was made/,
      ),
    });
    expect(result.stdout).toMatch(/blocked g\/a: the agent repeats itself/);
    // Escalated like any block: the bundle names the reason.
    expect(ws.events().some((e) => e.type === 'task.escalated' && e.task === 'g/a')).toBe(true);
    const bundle = JSON.parse(
      ws.read('agent-task/.switchyard/escalations/g/a.failure-bundle.json'),
    );
    expect(JSON.stringify(bundle)).toContain('the agent repeats itself');
    expect(sourceStatus(ws)).toBe('');
    // The retrospective counts the three empty diffs as failures of t, not "100 % success".
    const retro = await cli(['retro', '--workspace', ws.dir, '--json']);
    expect(retro.code, retro.stderr).toBe(0);
    const t = JSON.parse(retro.stdout).targets.find((g: { target: string }) => g.target === 't');
    expect(t).toMatchObject({ attempts: 3, succeeded: 0, failureClasses: { 'empty-diff': 3 } });
    expect(t.successRate).toBe(0);
  });
});
