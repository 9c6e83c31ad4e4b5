import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, TrialWorkspace, until } from './kit.js';

/** `switchyard status` through the built binary: during a run, after a crash, after the run. */
function status(ws: TrialWorkspace, json = true) {
  const result = spawnSync(
    process.execPath,
    [CLI, 'status', '--workspace', ws.dir, ...(json ? ['--json'] : [])],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    report: json && result.status === 0 ? JSON.parse(result.stdout) : undefined,
  };
}

describe('switchyard status', { timeout: 180_000 }, () => {
  it('is correct during a run, after a SIGKILL of the dispatcher, and after the run', async () => {
    const ws = new TrialWorkspace('sy-status-');
    ws.catalog({
      t: {
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          {
            when: { role: 'worker', task: 'g/long', attempt: 1 },
            steps: [{ say: 'long work' }, { hang: true }],
          },
          {
            when: { role: 'worker', task: 'g/fails' },
            steps: [{ print: 'fatal: cannot parse input', stream: 'stderr' }, { exit: 2 }],
          },
        ],
        steps: [{ fillChecklist: true }, { result: 'done' }],
      },
    });
    ws.config({ retry: { baseDelayMs: 30_000, maxDelayMs: 30_000 }, stallTimeoutMs: 120_000 });
    ws.task('g/long', { files: ['src/shared.ts'] });
    ws.task('g/after', { files: ['src/after.ts'], dependsOn: ['long'] });
    ws.task('g/x-collides', { files: ['src/shared.ts', 'src/c.ts'] });
    ws.task('g/fails', { files: ['src/f.ts'] });

    const never = status(ws);
    expect(never.report.dispatcher.state).toBe('never-run');

    const run = ws.start(['--max-parallel', '3']);
    let ended = false;
    void run.exited.then(() => {
      ended = true;
    });
    await until(
      () => ended || ws.events().some((e) => e.type === 'attempt.started' && e.task === 'g/long'),
      'g/long to start',
    );
    expect(ended, run.stdout + run.stderr).toBe(false);
    await until(
      () => ws.events().some((e) => e.type === 'attempt.retry-scheduled' && e.task === 'g/fails'),
      'g/fails to fail',
    );
    const during = status(ws);
    expect(during.code).toBe(0);
    const r = during.report;
    expect(r.dispatcher).toMatchObject({ state: 'running', pid: run.pid });
    const long = r.running.find((e: { task: string }) => e.task === 'g/long');
    expect(long).toMatchObject({ role: 'worker', target: 't', supervision: 'watched' });
    expect(long.pid).toBeGreaterThan(0);
    const why = Object.fromEntries(
      r.waiting.map((w: { task: string; why: string }) => [w.task, w.why]),
    );
    expect(why['g/after']).toBe('waits on g/long');
    expect(why['g/x-collides']).toContain('src/shared.ts (held by g/long)');
    expect(why['g/fails']).toMatch(
      /^retry of the worker after \d+ consecutive failure\(s\), not before /,
    );
    const human = status(ws, false);
    expect(human.stdout).toMatch(/dispatcher: running \(pid \d+/);
    expect(human.stdout).toMatch(/g\/long\s+(worker|review)\s+loop 1 of \d+\s+on t\s+pid \d+/);

    // SIGKILL the dispatcher: the agent keeps running, orphaned; the run is reported crashed.
    run.kill('SIGKILL');
    await run.exited;
    const crashed = status(ws).report;
    expect(crashed.dispatcher.state).toBe('crashed');
    expect(crashed.running.find((e: { task: string }) => e.task === 'g/long')).toMatchObject({
      supervision: 'orphaned',
      pid: long.pid,
    });
    expect(status(ws, false).stdout).toContain('`switchyard run` recovers it');

    // The agent ends while nobody watches it: the next run judges it; blocked tasks show why.
    process.kill(-long.pid, 'SIGKILL');
    await until(() => status(ws).report.running.length === 0, 'the orphaned agent to end');
    expect(
      status(ws).report.waiting.find((w: { task: string }) => w.task === 'g/long'),
    ).toMatchObject({ kind: 'interrupted' });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 5 }, stallTimeoutMs: 120_000 });
    const second = ws.start(['--max-parallel', '3']);
    const exit = await second.exited;
    expect(exit.code).toBe(3);
    const after = status(ws).report;
    expect(after.dispatcher).toMatchObject({ state: 'stopped', lastRun: { exitCode: 3 } });
    expect(after.blocked).toEqual([expect.objectContaining({ task: 'g/fails', stage: 'worker' })]);
    expect(after.done.map((d: { task: string }) => d.task).sort()).toEqual([
      'g/after',
      'g/long',
      'g/x-collides',
    ]);
    expect(after.running).toEqual([]);
    const text = status(ws, false).stdout;
    expect(text).toContain('blocked (1)');
    expect(text).toContain('done (3)');
  });

  it('exits 2 on a folder without agent-task/', () => {
    const result = spawnSync(process.execPath, [CLI, 'status', '--workspace', '/'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no tasks here: no agent-task/ folder in /');
  });
});
