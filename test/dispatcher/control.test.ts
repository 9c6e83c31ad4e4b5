import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../engine/cli-in-process.js';
import { runCli, until, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

/** PIDs of live processes whose environment names this workspace (the fake agents). */
function agentsOf(workspace: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && env.includes(`SWITCHYARD_WORKSPACE=${workspace}\0`))
        pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

describe('switchyard run: lock, interrupt and exit codes', { timeout: 120_000 }, () => {
  it('refuses a second dispatcher at once (exit 1, naming the holder); SIGINT ends the first with 130 and no agent left; a later run finishes', async () => {
    const ws = new Workspace();
    ws.catalog({
      h: {
        scenario: {
          cases: [approve, { when: { role: 'worker', attempt: 1 }, steps: [{ hang: true }] }],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/long', { files: ['src/l.ts'] });
    let firstPid = 0;
    const first = ws.run([], {
      onSpawn: (pid) => {
        firstPid = pid;
      },
    });
    await until(() => ws.events().some((e) => e.type === 'attempt.started'));
    // The first run's agent hangs until it is interrupted below: a second run that waited for
    // the lock instead of refusing would never end (the test's time-out, not a margin).
    const second = await ws.run();
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toContain('SY_LOCK_HELD');
    expect(second.stderr).toContain(`pid ${firstPid} on`);
    expect(agentsOf(ws.dir).length).toBeGreaterThan(0);

    process.kill(firstPid, 'SIGINT');
    const interrupted = await first;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stdout).toContain('Interrupted');
    expect(agentsOf(ws.dir)).toEqual([]);
    // State kept: the claim is still held; the next run finishes the task.
    expect(
      JSON.parse(ws.read('agent-task/.switchyard/claims/claims.json')).tasks['g/long'],
    ).toBeDefined();
    const again = await ws.run();
    expect(again.code, again.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/g/long/complete.log')).toBe(true);
  });

  it('exits 2 on an invalid plan and launches nothing', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fillChecklist: true }] } } });
    ws.task('g/ok', { files: ['src/ok.ts'] });
    ws.task('g/bad', { files: ['../outside.ts'] });
    // The CLI's own entry in this process (test/engine/cli-in-process.ts): its exit code is the
    // binary's, as the first test shows for the lock, SIGINT and a finished run.
    const result = await runInProcess(ws);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('SY_PLAN_INVALID');
    expect(result.stderr).toContain('escapes the workspace');
    expect(ws.events()).toEqual([]);
    expect(ws.attempts()).toEqual([]);
  });

  it('exits 2 on an unknown flag and on --with naming no target', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [] } } });
    ws.task('g/ok', { files: ['src/ok.ts'] });
    expect((await runInProcess(ws, ['--no-such-flag'])).code).toBe(2);
    const withBad = await runInProcess(ws, ['--with', 'ghost']);
    expect(withBad.code, withBad.stderr).toBe(2);
    expect(withBad.stderr).toContain('with "ghost" is neither a target id nor an agent');
  });

  it('prints the typed event stream as JSONL with --json', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('g/j', { files: ['src/j.ts'] });
    const result = await runCli([
      'run',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // First the session (seed 003's session_started), then the run's typed events.
    expect(events[0]).toMatchObject({
      type: 'session.started',
      session_id: expect.stringMatching(/^s-\d{8}T\d{6}Z-[0-9a-f]{4}$/),
      resumed: false,
      plan: null,
      tasks: 1,
    });
    expect(events[0].monitor_url).toBeUndefined();
    expect(events[1]).toMatchObject({ type: 'run.started', tasks: 1 });
    expect(events.map((e) => e.type)).toContain('task.archived');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', exitCode: 0 });
  });
});
