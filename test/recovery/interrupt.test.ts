import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentProcesses, TrialWorkspace, until } from './kit.js';

/**
 * SIGINT/SIGTERM during a run: exit 130, every agent process group ended (grandchildren
 * included, found in /proc by the workspace marker), state persisted (claims kept, the
 * interrupted attempts not counted against the budget), and a later run finishes the work.
 */
const TASKS = ['g/one', 'g/two', 'g/three'];

function hangingBacklog(): TrialWorkspace {
  const ws = new TrialWorkspace('sy-interrupt-');
  ws.catalog({
    t: {
      cases: [
        { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
        // First worker run of each task: leave grandchildren behind, then hang.
        {
          when: { role: 'worker', attempt: 1 },
          steps: [{ say: 'starting' }, { spawn: { sleepMs: 120_000, count: 2 } }, { hang: true }],
        },
      ],
      steps: [{ fillChecklist: true }, { result: 'done' }],
    },
  });
  for (const [i, id] of TASKS.entries()) ws.task(id, { files: [`src/${i}.ts`] });
  return ws;
}

describe.each(['SIGINT', 'SIGTERM'] as const)('%s during a run', (signal) => {
  it(`exits 130, ends every agent process group, keeps state; a later run finishes`, {
    timeout: 180_000,
  }, async () => {
    const ws = hangingBacklog();
    const run = ws.start(['--max-parallel', '3']);
    // Three agents, each with two grandchildren (+ the stage-log shell): all carry the marker.
    await until(() => agentProcesses(ws.dir).length >= 3 * 4, 'agents and their grandchildren');
    run.kill(signal);
    const exit = await run.exited;
    expect(exit.code).toBe(130);
    expect(run.stdout).toContain('Interrupted');
    expect(agentProcesses(ws.dir), 'no agent, shell or grandchild left').toEqual([]);

    for (const id of TASKS) {
      const state = JSON.parse(
        readFileSync(ws.path('agent-task/.switchyard/tasks', `${id}.json`), 'utf8'),
      );
      expect(state.phase).toBe('worker');
      expect(state.failures.worker).toBe(0);
      expect(state.blocked).toBeUndefined();
      expect(state.attempts).toHaveLength(1);
      expect(state.attempts[0]).toMatchObject({
        status: 'finished',
        interrupted: true,
        result: 'process-termination',
      });
    }
    expect(Object.keys(ws.claims()).sort()).toEqual([...TASKS].sort());
    const finished = ws.events().filter((e) => e.type === 'run.finished');
    expect(finished.at(-1)).toMatchObject({ exitCode: 130 });

    const again = ws.start(['--max-parallel', '3']);
    const second = await again.exited;
    expect(second.code, again.stdout + again.stderr).toBe(0);
    for (const id of TASKS) expect(ws.exists('agent-task/archive', id, 'complete.log')).toBe(true);
    expect(ws.claims()).toEqual({});
  });
});
