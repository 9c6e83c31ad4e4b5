import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { agentProcesses, CLI, type Dispatcher, TrialWorkspace, until } from './kit.js';

/**
 * A task folder archived by hand while its agent still ran (the dispatcher had died): the
 * restarted run re-attaches that agent, holds the task's dependents and claim until it ends,
 * and writes its FINISH row. The folder alone never makes the task done (an agent could have
 * moved it): the run exits 3 until a person records it with `switchyard resolve --done`.
 */
describe('a task archived by hand while its agent runs', { timeout: 180_000 }, () => {
  function setup(): { ws: TrialWorkspace; first: Dispatcher } {
    const ws = new TrialWorkspace('sy-hand-archived-');
    ws.catalog({
      t: {
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          {
            when: { role: 'worker', task: 'g/x' },
            steps: [{ say: 'working' }, { waitFor: '.release-x' }, { result: 'done' }],
          },
        ],
        steps: [{ fillChecklist: true }, { result: 'done' }],
      },
    });
    ws.task('g/x', { files: ['src/x.ts'] });
    ws.task('g/y', { files: ['src/y.ts'], dependsOn: ['x'] });
    return { ws, first: ws.start() };
  }

  async function killWhileXRuns(ws: TrialWorkspace, first: Dispatcher): Promise<void> {
    await until(
      () => ws.events().some((e) => e.type === 'attempt.started' && e.task === 'g/x'),
      'g/x worker running',
    );
    first.kill('SIGKILL');
    await first.exited;
    // The user archives g/x by hand while its agent still runs.
    mkdirSync(ws.path('agent-task/archive/g'), { recursive: true });
    renameSync(ws.path('agent-task/g/x'), ws.path('agent-task/archive/g/x'));
  }

  /** Starts run 2 and waits until it re-attached g/x's agent and scheduled once. */
  async function restart(ws: TrialWorkspace): Promise<Dispatcher> {
    const before = ws.events().length;
    const second = ws.start();
    onTestFinished(() => {
      writeFileSync(ws.path('.release-x'), '');
      second.kill('SIGKILL');
    });
    const recent = () => ws.events().slice(before);
    await until(
      () => recent().some((e) => e.type === 'attempt.started' && e.task === 'g/x' && e.reattached),
      "g/x's agent re-attached",
    );
    await until(
      () => recent().some((e) => e.type === 'run.progress') || second.child.exitCode !== null,
      'one scheduling pass',
    );
    expect(
      recent().filter((e) => e.type === 'attempt.started' && e.task === 'g/y'),
      'g/y waits while g/x runs',
    ).toEqual([]);
    return second;
  }

  it('with a complete.log it did not write: not done until a person says so (exit 3), then `resolve --done` lets the dependent run (exit 0)', async () => {
    const { ws, first } = setup();
    await killWhileXRuns(ws, first);
    writeFileSync(ws.path('agent-task/archive/g/x/complete.log'), 'archived by hand\n');
    const second = await restart(ws);
    writeFileSync(ws.path('.release-x'), '');
    const exit = await second.exited;
    // Anyone could have put that folder there (an agent has its path): it is reported.
    expect(exit.code, second.stdout + second.stderr).toBe(3);
    expect(second.stdout).toMatch(/g\/x.*without the dispatcher's record/);
    expect(ws.stages().filter((s) => s.task === 'g/y')).toEqual([]);
    expect(agentProcesses(ws.dir)).toEqual([]);

    const resolved = spawnSync(
      process.execPath,
      [CLI, 'resolve', 'g/x', '--done', '--workspace', ws.dir],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(resolved.status, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain('recorded as done by hand');
    const third = ws.start();
    onTestFinished(() => third.kill('SIGKILL'));
    const done = await third.exited;
    expect(done.code, third.stdout + third.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/g/y/complete.log')).toBe(true);
    expect(ws.claims()).toEqual({});
    const xEnd = ws.stages().find((s) => s.ev === 'end' && s.task === 'g/x')!;
    const yStart = ws.stages().find((s) => s.ev === 'start' && s.task === 'g/y')!;
    expect(yStart.t, 'g/y started after g/x ended').toBeGreaterThan(xEnd.t);
    // Every START row of the (archived) group log has its FINISH.
    const logs = readdirSync(ws.path('agent-task/archive/g')).filter((f) =>
      f.startsWith('work_log_'),
    );
    expect(logs).toHaveLength(1);
    const log = readFileSync(ws.path('agent-task/archive/g', logs[0]!), 'utf8');
    const rows = (kind: string) =>
      log
        .split('\n')
        .filter((l) => l.includes(`| ${kind} |`))
        .map((l) => l.split('|')[6]!.trim());
    expect(rows('FINISH').sort()).toEqual(rows('START').sort());
  });

  it('without complete.log: the dependent never starts and the run exits 3', async () => {
    const { ws, first } = setup();
    await killWhileXRuns(ws, first);
    const second = await restart(ws);
    writeFileSync(ws.path('.release-x'), '');
    const exit = await second.exited;
    expect(exit.code, second.stdout + second.stderr).toBe(3);
    expect(second.stdout).toMatch(/g\/x.*complete\.log/);
    expect(ws.stages().filter((s) => s.task === 'g/y')).toEqual([]);
    expect(agentProcesses(ws.dir)).toEqual([]);
  });
});
