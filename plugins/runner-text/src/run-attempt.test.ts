import { readFileSync } from 'node:fs';
import {
  attemptPaths,
  PROCESS_MARKER_VAR,
  readLastHeartbeat,
  readLocator,
  readStreamLog,
} from '@switchyard/runner-kit';
import { findProcessesWithMarker } from '@switchyard/utils';
import { describe, expect, it, vi } from 'vitest';
import { groupMembers } from './process-group.js';
import { startAttempt } from './run-attempt.js';
import { nodeScript, testSpec } from './test-helpers.js';

describe('startAttempt (text)', () => {
  it('runs without a shell, frames both streams and records evidence', async () => {
    const spec = testSpec(
      nodeScript(`
        const fs = require('node:fs');
        console.log('arg=' + process.argv[1]);
        console.log('marker=' + process.env.SWITCHYARD_ATTEMPT_ID + ' role=' + process.env.SWITCHYARD_ROLE);
        console.error('API Error: something failed');
        process.stdout.write('no newline at end');
        try { fs.readSync(0, Buffer.alloc(1)); console.error('stdin readable'); } catch (e) { console.error('stdin ' + e.code); }
        process.exitCode = 3;
      `).concat(['$HOME; rm -rf / "quoted"']),
    );
    const handle = await startAttempt(spec);
    expect(handle.pid).toBeGreaterThan(0);
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, exitObserved: true });
    expect(outcome.endedBy).toBeUndefined();
    const paths = attemptPaths(spec.attemptDir);
    const stdout = readFileSync(paths.stdoutRaw, 'utf8');
    expect(stdout).toContain('arg=$HOME; rm -rf / "quoted"\n');
    expect(stdout).toContain(`marker=${spec.attemptId} role=worker`);
    expect(outcome.evidence.stderrTail).toContain('API Error: something failed');
    expect(outcome.evidence.stdoutTail.at(-1)).toBe('no newline at end');
    expect(outcome.counters.stdoutBytes).toBe(Buffer.byteLength(stdout));
    // stdin is /dev/null: reading it gives EOF (0 bytes), never a TTY stop
    expect(readFileSync(paths.stderrRaw, 'utf8')).not.toContain('stdin E');
    const rebuilt = { stdout: '', stderr: '' };
    for await (const frame of readStreamLog(paths.stream))
      rebuilt[frame.stream] += frame.data.toString();
    expect(rebuilt.stdout).toBe(stdout);
    expect(rebuilt.stderr).toBe(readFileSync(paths.stderrRaw, 'utf8'));
    expect(readFileSync(paths.normalized, 'utf8')).toContain(
      '[stderr] API Error: something failed',
    );
    const locator = await readLocator(spec.attemptDir);
    expect(locator).toMatchObject({
      attemptId: spec.attemptId,
      exitCode: 3,
      result: 'failure',
      exitObserved: true,
    });
    expect(locator.process).toMatchObject({
      pid: handle.pid,
      markerName: PROCESS_MARKER_VAR,
      marker: spec.attemptId,
    });
    expect(locator.process.startToken).toMatch(/:\d+$/);
    expect(await readLastHeartbeat(paths.heartbeat)).toMatchObject({
      alive: false,
      stdoutBytes: Buffer.byteLength(stdout),
    });
  });

  it('reports a command that cannot start', async () => {
    await expect(startAttempt(testSpec(['/nonexistent/agent-cli', 'x']))).rejects.toMatchObject({
      code: 'SY_RUNNER_SPAWN',
    });
  });

  it('cancel ends the whole group: no grandchild survives', async () => {
    const spec = testSpec([
      'sh',
      '-c',
      'sleep 300 & sleep 300 & (trap "" TERM; sleep 300) & echo started; wait',
    ]);
    const handle = await startAttempt(spec);
    await vi.waitFor(() => expect(handle.progress().lines).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 20,
    });
    expect(groupMembers(handle.pid).length).toBeGreaterThanOrEqual(4);
    const outcome = await handle.cancel();
    expect(outcome.endedBy).toBe('cancel');
    expect(groupMembers(handle.pid)).toEqual([]);
    expect(findProcessesWithMarker(PROCESS_MARKER_VAR, spec.attemptId)).toEqual([]);
    expect((await readLocator(spec.attemptDir)).endedBy).toBe('cancel');
  });

  it('leaves no background child behind after a normal exit, in its group or not', async () => {
    // `setsid`: a new session, out of the group; only its marker (environment) tells it is ours.
    const spec = testSpec(['sh', '-c', 'sleep 300 & setsid sleep 301 & echo bye']);
    const outcome = await (await startAttempt(spec)).done;
    expect(outcome.exitCode).toBe(0);
    expect(findProcessesWithMarker(PROCESS_MARKER_VAR, spec.attemptId)).toEqual([]);
  });

  it('ends a silent attempt as a stall', async () => {
    const spec = testSpec(['sh', '-c', 'echo one; sleep 300'], { stallTimeoutMs: 300 });
    // `sleep 300` would hold the attempt for 5 minutes: ending at all (by SIGTERM, as a stall)
    // is the proof; no bound on how long the machine took to notice.
    const outcome = await (await startAttempt(spec)).done;
    expect(outcome.endedBy).toBe('stall');
    expect(outcome.signal).toBe('SIGTERM');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(300);
    expect(outcome.evidence.endedBy).toBe('stall');
  });

  it('ends an attempt that only prints retry lines as a retry loop, keeping those lines', async () => {
    const spec = testSpec(
      nodeScript(
        `console.log('working'); let n = 0; setInterval(() => console.error('Retrying in 1s (attempt ' + (++n) + ')'), 30);`,
      ),
      {
        retryLoopTimeoutMs: 400,
        stallTimeoutMs: 60_000,
        isRetryLine: (line) => line.startsWith('Retrying in'),
      },
    );
    const outcome = await (await startAttempt(spec)).done;
    expect(outcome.endedBy).toBe('retry-loop');
    expect(outcome.evidence.endedBy).toBe('retry-loop');
    expect(outcome.evidence.retryLines.at(-1)).toMatch(/^Retrying in 1s \(attempt \d+\)$/);
    // How many lines a loaded machine lets the loop print in 400 ms varies: at least the kept one.
    expect(outcome.counters.retryLines).toBeGreaterThanOrEqual(outcome.evidence.retryLines.length);
    expect(outcome.evidence.retryLines.length).toBeGreaterThan(0);
  });
});
