// Wall-clock steps under libfaketime (the dispatcher and its agents run with it preloaded; the
// test moves their wall clock through a timestamp file and leaves the monotonic clock alone):
// a +3 h step during an attempt must not end it by time limit, a -1 h step while no
// dispatcher runs must not stretch a 3 s backoff into an hour, durations are never negative.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, CLI, type Workspace } from '../dispatcher/helpers.js';

const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
].find((p) => existsSync(p));

/** Waits for a condition driven by the processes under test (no fixed sleeps). */
async function until(what: string, check: () => boolean, ms = 120_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function startRun(
  ws: Workspace,
  clockFile: string,
): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [CLI, 'run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
    {
      env: {
        ...process.env,
        NO_COLOR: '1',
        LD_PRELOAD: LIBFAKETIME!,
        FAKETIME_TIMESTAMP_FILE: clockFile,
        FAKETIME_NO_CACHE: '1',
        DONT_FAKE_MONOTONIC: '1',
        NO_FAKE_STAT: '1',
      },
      stdio: 'ignore',
    },
  );
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, done };
}

/** The run's exit code, or a failure (and the run killed) when it does not end in time. */
async function finished(run: ReturnType<typeof startRun>, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const code = await Promise.race([run.done, late]);
  clearTimeout(timer);
  if (code === 'late') {
    run.child.kill('SIGKILL');
    throw new Error(`the run did not end within ${ms} ms`);
  }
  return code;
}

describe.skipIf(!LIBFAKETIME)('wall-clock steps (libfaketime)', { timeout: 300_000 }, () => {
  it('+3 h during an attempt, then -1 h after a crash: no time-limit kill, the backoff stays 3 s, durations stay sane', async () => {
    const ws = agentWorkspace({
      config: { retry: { baseDelayMs: 3000, maxDelayMs: 3000 } },
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [
            { write: { path: 'started.flag', content: 'x' } },
            { waitFor: 'stepped.flag' },
            { say: 'after the step' },
            { waitFor: 'go.flag' },
            { exit: 1 },
          ],
        },
      ],
    });
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.a.runtime.max_attempt_seconds = 600;
    writeFileSync(ws.catalogFile, JSON.stringify(catalog));
    ws.task('g/t', { files: ['src/t.ts'] });
    const clockFile = ws.path('.faketime');
    writeFileSync(clockFile, '+0\n');
    const stateFile = ws.path('agent-task', '.switchyard', 'tasks', 'g', 't.json');
    const first = startRun(ws, clockFile);
    try {
      await until('the first attempt', () => ws.exists('started.flag'));
      writeFileSync(clockFile, '+3h\n');
      writeFileSync(ws.path('stepped.flag'), 'x');
      // The dispatcher read the line after the step, so its time-limit check has run since.
      const [dir] = ws.attempts();
      await until('the output after the step', () => {
        const log = join(
          ws.path('agent-task', '.switchyard', 'attempts'),
          dir ?? '',
          'normalized-output.log',
        );
        return existsSync(log) && readFileSync(log, 'utf8').includes('after the step');
      });
      writeFileSync(ws.path('go.flag'), 'x');
      await until('the backoff in the state', () => {
        const state = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : {};
        return state.notBefore !== undefined && state.attempts?.[0]?.status === 'finished';
      });
    } finally {
      first.child.kill('SIGKILL');
      await first.done;
    }
    const worker = ws.events().find((e) => e.type === 'attempt.finished' && e.role === 'worker');
    expect(worker?.evidence, 'the attempt was not ended by its time limit').not.toContain(
      'ended by time-limit',
    );
    expect(worker?.result).toBe('generic-error');
    expect(worker?.durationMs as number).toBeGreaterThanOrEqual(0);
    expect(worker?.durationMs as number).toBeLessThan(3_600_000);

    // The clock goes back an hour while no dispatcher runs: the 3 s backoff must not become 4 h.
    writeFileSync(clockFile, '-1h\n');
    const second = startRun(ws, clockFile);
    expect(await finished(second, 180_000)).toBe(0);
    const events = ws.events();
    const retried = events.filter((e) => e.type === 'attempt.finished' && e.role === 'worker');
    expect(retried.map((e) => e.result)).toEqual(['generic-error', 'success']);
    for (const e of events.filter((e) => e.type === 'attempt.finished'))
      expect(e.durationMs as number).toBeGreaterThanOrEqual(0);
    const finishedRun = events.filter((e) => e.type === 'run.finished').at(-1);
    expect(finishedRun?.elapsedMs as number).toBeLessThan(3_600_000);
  });
});
