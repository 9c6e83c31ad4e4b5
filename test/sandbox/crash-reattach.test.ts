// A dispatcher SIGKILLed while a sandboxed agent works: the agent keeps running (bwrap has no
// --die-with-parent, and the spawn helper's end does not reach it); the next `switchyard run`
// re-attaches it (the event says it is sandboxed), the attempt finishes and the task is archived,
// the agent having run once.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_AGENT, until, Workspace } from '../dispatcher/helpers.js';

const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);

const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('a sandboxed agent across a dispatcher crash', { timeout: 120_000 }, () => {
  it('outlives the SIGKILLed dispatcher and is re-attached by the next run', async () => {
    const ws = new Workspace();
    // the fake agent's scenario, its run record and the gate it waits for: a writable folder
    const shared = mkdtempSync(join(tmpdir(), 'sy-sandbox-crash-'));
    const scenario = join(shared, 'a.json');
    const gate = join(shared, 'go');
    writeFileSync(
      scenario,
      JSON.stringify({
        format: 'claude-code',
        cases: [{ when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] }],
        steps: [
          { waitFor: gate },
          { write: { path: 'src/c.txt', content: 'c\n' } },
          { fillChecklist: true },
        ],
      }),
    );
    const routes = Object.fromEntries(ROUTES.map((r) => [r, { candidates: ['a'] }]));
    writeFileSync(
      ws.catalogFile,
      JSON.stringify({
        schema_version: 1,
        targets: {
          a: {
            agent: 'claude-code',
            model: 'fake',
            execution_class: 'local_model',
            runtime: {
              command: [process.execPath, FAKE_AGENT, '--scenario', scenario, '{prompt}'],
              output_format: 'jsonl',
            },
          },
        },
        routes: { worker: routes, review: routes },
      }),
    );
    ws.task('g/crash', { files: ['src/c.txt'] });
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      sandbox: { mode: 'bwrap', writable: [shared] },
    });
    const home = mkdtempSync(join(tmpdir(), 'sy-sandbox-home-'));
    const env = { HOME: home };

    let pid = 0;
    const first = ws.run([], { env, onSpawn: (p) => (pid = p) });
    await Promise.race([
      until(() => ws.events().some((e) => e.type === 'attempt.started')),
      first.then((r) => {
        throw new Error(`the run ended before its agent started: ${r.stdout}${r.stderr}`);
      }),
    ]);
    const started = ws.events().find((e) => e.type === 'attempt.started');
    expect(started?.sandbox).toBe('bwrap');
    const agentPid = started?.pid as number;
    process.kill(pid, 'SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    expect(alive(agentPid)).toBe(true);

    const second = ws.run([], { env });
    await until(() =>
      ws.events().some((e) => e.type === 'attempt.started' && e.reattached === true),
    );
    expect(alive(agentPid)).toBe(true);
    writeFileSync(gate, '');
    const result = await second;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(
      ws.events().filter((e) => e.type === 'attempt.started' && e.reattached === true),
    ).toEqual([
      expect.objectContaining({ task: 'g/crash', role: 'worker', pid: agentPid, sandbox: 'bwrap' }),
    ]);
    // one worker run, one review run: the re-attached agent was never started twice
    const runs = readFileSync(`${scenario}.state.jsonl`, 'utf8').trim().split('\n');
    expect(runs.map((l) => JSON.parse(l).role)).toEqual(['worker', 'review']);
    expect(ws.read('src/c.txt')).toBe('c\n');
    expect(ws.exists('agent-task/archive/g/crash/complete.log')).toBe(true);
  });
});
