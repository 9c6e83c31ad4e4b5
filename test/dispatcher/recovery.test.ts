import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { until, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

/**
 * A run of `task` whose dispatcher is SIGKILLed once its worker started; the agent works on
 * until the test creates `go` (after the kill), however slow the machine.
 */
async function crashWithAgentRunning(task: string, file: string) {
  const ws = new Workspace();
  const go = join(mkdtempSync(join(tmpdir(), 'sy-go-')), 'go');
  // A test that fails before it lets the orphaned agent go would leave it waiting forever.
  onTestFinished(() => writeFileSync(go, ''));
  ws.catalog({
    a: { scenario: { cases: [approve], steps: [{ waitFor: go }, { fillChecklist: true }] } },
  });
  ws.task(task, { files: [file] });
  let pid = 0;
  const first = ws.run([], {
    onSpawn: (p) => {
      pid = p;
    },
  });
  await Promise.race([
    until(() => ws.events().some((e) => e.type === 'attempt.started')),
    first.then((r) => {
      throw new Error(`the run ended before its agent started: ${r.stderr}`);
    }),
  ]);
  const agentPid = ws.events().find((e) => e.type === 'attempt.started')?.pid as number;
  process.kill(pid, 'SIGKILL');
  expect((await first).signal).toBe('SIGKILL');
  expect(alive(agentPid)).toBe(true);
  return { ws, go, agentPid };
}

describe('switchyard run: restart after a dispatcher crash', { timeout: 120_000 }, () => {
  it('re-attaches the agent a SIGKILLed dispatcher left running instead of starting it twice', async () => {
    const { ws, go, agentPid } = await crashWithAgentRunning('g/crash', 'src/c.ts');

    // Let the agent finish only once the second run has re-attached it.
    const secondRun = ws.run();
    await until(() => ws.events().some((e) => e.type === 'attempt.started' && e.reattached));
    writeFileSync(go, '');
    const second = await secondRun;
    expect(second.code, second.stderr).toBe(0);
    const reattached = ws
      .events()
      .filter((e) => e.type === 'attempt.started' && e.reattached === true);
    expect(reattached).toEqual([
      expect.objectContaining({ task: 'g/crash', role: 'worker', pid: agentPid }),
    ]);
    // The fake agent records every run it made: one worker run, one review run.
    const runs = readFileSync(ws.path('.scenario-a.json.state.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs.map((r) => r.role)).toEqual(['worker', 'review']);
    expect(ws.exists('agent-task/archive/g/crash/complete.log')).toBe(true);
  });

  it('re-attaches an agent whose PID was not written yet (a crash before its record said running), never starting it twice', async () => {
    const { ws, go, agentPid } = await crashWithAgentRunning('g/early', 'src/e.ts');
    // The state as a crash right after the spawn leaves it, whenever the kill landed: the
    // attempt's record written before the spawn (status starting), without PID or start token
    // (they ride with the attempt's end, or are written once it has run a while).
    const stateFile = ws.path('agent-task/.switchyard/tasks/g/early.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    const [record] = state.attempts;
    expect(record).toMatchObject({
      role: 'worker',
      status: expect.stringMatching(/^(starting|running)$/),
    });
    record.status = 'starting';
    delete record.pid;
    delete record.startToken;
    writeFileSync(stateFile, `${JSON.stringify(state, null, 1)}\n`);

    // Found by the marker in its environment, re-attached, and let finish only then.
    const secondRun = ws.run();
    await until(() => ws.events().some((e) => e.type === 'attempt.started' && e.reattached));
    writeFileSync(go, '');
    const second = await secondRun;
    expect(second.code, second.stderr).toBe(0);
    expect(
      ws.events().filter((e) => e.type === 'attempt.started' && e.reattached === true),
    ).toEqual([expect.objectContaining({ task: 'g/early', role: 'worker', pid: agentPid })]);
    const runs = readFileSync(ws.path('.scenario-a.json.state.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs.map((r) => r.role)).toEqual(['worker', 'review']);
    expect(ws.exists('agent-task/archive/g/early/complete.log')).toBe(true);
  });

  it('fails closed when the catalog changed under a persisted decision; --retry-blocked re-decides', async () => {
    const ws = new Workspace();
    const scenario = {
      cases: [approve, { when: { role: 'worker', attempt: 1 }, steps: [{ hang: true }] }],
      steps: [{ fillChecklist: true }],
    };
    ws.catalog({ a: { scenario } });
    ws.task('g/cat', { files: ['src/k.ts'] });
    let pid = 0;
    const first = ws.run([], {
      onSpawn: (p) => {
        pid = p;
      },
    });
    // Wait until the agent has recorded its run (it counts attempts), then stop the dispatcher.
    await until(() => existsSync(ws.path('.scenario-a.json.state.jsonl')));
    process.kill(pid, 'SIGTERM');
    expect((await first).code).toBe(130);

    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.a.model = 'model-a-v2';
    writeFileSync(ws.catalogFile, JSON.stringify(catalog));
    const blocked = await ws.run();
    expect(blocked.code, blocked.stderr).toBe(3);
    expect(blocked.stdout).toContain('g/cat: catalog changed');
    const event = ws.events().findLast((e) => e.type === 'task.blocked');
    expect(event?.evidence).toEqual([
      expect.stringMatching(/^decided revision: [0-9a-f]{64} \(flag:/),
      expect.stringMatching(/^current revision: [0-9a-f]{64} \(flag:/),
    ]);

    const retried = await ws.run(['--retry-blocked']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/g/cat/complete.log')).toBe(true);
  });
});
