import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAgentIo, runFakeAgent } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { APPROVE, FAKE_AGENT, Workspace } from '../dispatcher/helpers.js';
import { runEngine, storedEvents, taskStates } from './harness.js';
import { IN_PROCESS_PID } from './in-process-runner.js';

describe('the in-process engine harness', { timeout: 60_000 }, () => {
  it('plays a scenario exactly as the spawned fake agent prints it (one implementation)', async () => {
    const ws = new Workspace();
    const scenario = join(ws.dir, '.scenario-same.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        format: 'claude-code',
        sessionId: '00000000-0000-4000-8000-000000000001',
        steps: [
          { say: 'working' },
          { write: { path: 'out.txt', content: 'x' } },
          { print: 'to stderr', stream: 'stderr' },
          { fault: 'quota' },
        ],
      }),
    );
    const args = ['--scenario', scenario, '--model', 'm', 'the prompt'];
    const env = { ...process.env, SWITCHYARD_WORKSPACE: ws.dir };
    const spawned = spawnSync(process.execPath, [FAKE_AGENT, ...args], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = { 1: '', 2: '' };
    const io: FakeAgentIo = {
      write: (fd, data) => {
        out[fd] += String(data);
      },
      cwd: ws.dir,
      pid: IN_PROCESS_PID,
      stdin: { kind: 'other', read: () => '' },
      kill: () => Promise.reject(new Error('no kill step here')),
    };
    const end = await runFakeAgent(args, env, io);
    expect(end).toEqual({ exitCode: spawned.status, signal: null });
    expect(out[1]).toBe(spawned.stdout);
    expect(out[2]).toBe(spawned.stderr);
    expect(readFileSync(join(ws.dir, 'out.txt'), 'utf8')).toBe('x');
    // Both runs were counted in the scenario's state file: attempt numbers are shared.
    expect(readFileSync(`${scenario}.state.jsonl`, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('ends a silent agent as a stall (the runner watchdog), a self-killed one by its signal, and keeps a second run on the same store', async () => {
    const ws = new Workspace();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, stallTimeoutMs: 300 });
    ws.catalog({
      a: {
        scenario: {
          cases: [
            APPROVE,
            { when: { role: 'worker', attempt: 1 }, steps: [{ say: 'thinking' }, { hang: true }] },
            { when: { role: 'worker', attempt: 2 }, steps: [{ kill: 'SIGSEGV' }] },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    const first = await runEngine(ws);
    expect(first.code, first.stdout).toBe(0);
    const finished = first.events.filter((e) => e.type === 'attempt.finished');
    expect(finished.map((e) => [e.role, e.signal])).toEqual([
      ['worker', 'SIGTERM'],
      ['worker', 'SIGSEGV'],
      ['worker', null],
      ['review', null],
    ]);
    expect(finished[0]!.evidence.join('\n')).toMatch(/stall|no progress/i);
    expect(finished[1]).toMatchObject({ result: 'process-termination', exitCode: null });
    const locator = JSON.parse(
      readFileSync(join(String(finished[0]!.attemptDir), 'locator.json'), 'utf8'),
    );
    expect(locator).toMatchObject({ endedBy: 'stall', process: { pid: IN_PROCESS_PID } });
    expect((await taskStates(first.store)).get('g/t')?.phase).toBe('done');
    // A second run on the same store finds nothing to do and adds its own events.
    const second = await runEngine(ws, { store: first.store });
    expect(second.code, second.stdout).toBe(0);
    expect(second.events.some((e) => e.type === 'attempt.started')).toBe(false);
    const all = await storedEvents(first.store);
    expect(all.filter((e) => e.type === 'run.started')).toHaveLength(2);
  });
});
