import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../engine/cli-in-process.js';
import { CLI, TrialWorkspace, until } from './kit.js';

/**
 * `switchyard status` through the CLI's own entry in this process (the binary's exit code and
 * output without a node start per call): during a run, after a crash, after the run. It reads
 * the files and /proc as the binary does; the last test runs the binary itself.
 */
async function status(ws: TrialWorkspace, json = true) {
  const result = await cli(['status', '--workspace', ws.dir, ...(json ? ['--json'] : [])]);
  return {
    ...result,
    report: json && result.code === 0 ? JSON.parse(result.stdout) : undefined,
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
    // g/fails's retry waits far longer than the test runs: status shows it waiting, however
    // loaded the machine; the test ends the wait itself (below), it never sits it out.
    ws.config({
      retry: { baseDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      stallTimeoutMs: 120_000,
    });
    ws.task('g/long', { files: ['src/shared.ts'] });
    ws.task('g/after', { files: ['src/after.ts'], dependsOn: ['long'] });
    ws.task('g/x-collides', { files: ['src/shared.ts', 'src/c.ts'] });
    ws.task('g/fails', { files: ['src/f.ts'] });

    const never = await status(ws);
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
    const during = await status(ws);
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
    const human = await status(ws, false);
    expect(human.stdout).toMatch(/dispatcher: running \(pid \d+/);
    expect(human.stdout).toMatch(/g\/long\s+(worker|review)\s+loop 1 of \d+\s+on t\s+pid \d+/);

    // SIGKILL the dispatcher: the agent keeps running, orphaned; the run is reported crashed.
    run.kill('SIGKILL');
    await run.exited;
    const crashed = (await status(ws)).report;
    expect(crashed.dispatcher.state).toBe('crashed');
    expect(crashed.running.find((e: { task: string }) => e.task === 'g/long')).toMatchObject({
      supervision: 'orphaned',
      pid: long.pid,
    });
    expect((await status(ws, false)).stdout).toContain('`switchyard run` recovers it');

    // The agent ends while nobody watches it: the next run judges it; blocked tasks show why.
    process.kill(-long.pid, 'SIGKILL');
    while ((await status(ws)).report.running.length > 0)
      await new Promise((r) => setTimeout(r, 25)); // the test's time-out ends the wait
    expect(
      (await status(ws)).report.waiting.find((w: { task: string }) => w.task === 'g/long'),
    ).toMatchObject({ kind: 'interrupted' });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 5 }, stallTimeoutMs: 120_000 });
    // The hour passes: the stored backoff of g/fails ends now (the state file as the run wrote
    // it, its instant moved back), so the next run retries it at once.
    const failsFile = `${ws.dir}/agent-task/.switchyard/tasks/g/fails.json`;
    const fails = JSON.parse(readFileSync(failsFile, 'utf8'));
    expect(Date.parse(fails.notBefore)).toBeGreaterThan(Date.now());
    const over = new Date(Date.now() - 1000).toISOString();
    fails.notBefore = over;
    if (fails.notBeforeBound) fails.notBeforeBound.until = over;
    writeFileSync(failsFile, `${JSON.stringify(fails, null, 1)}\n`);
    const second = ws.start(['--max-parallel', '3']);
    const exit = await second.exited;
    expect(exit.code).toBe(3);
    const after = (await status(ws)).report;
    expect(after.dispatcher).toMatchObject({ state: 'stopped', lastRun: { exitCode: 3 } });
    expect(after.blocked).toEqual([expect.objectContaining({ task: 'g/fails', stage: 'worker' })]);
    expect(after.done.map((d: { task: string }) => d.task).sort()).toEqual([
      'g/after',
      'g/long',
      'g/x-collides',
    ]);
    expect(after.running).toEqual([]);
    const text = (await status(ws, false)).stdout;
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
