import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AttemptRecord } from '@switchyard/core';
import { processIdentity } from '@switchyard/utils';
import { describe, expect, it, vi } from 'vitest';
import { ATTEMPT_MARKER_ENV, probeAttempt } from './attempt-probe.js';

function record(over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    id: `att-${process.pid}-${Math.random().toString(36).slice(2)}`,
    role: 'worker',
    planLoop: 1,
    target: 't1',
    attemptDir: '/tmp/x',
    status: 'starting',
    startedAt: new Date().toISOString(),
    ...over,
  };
}

describe('attempt probe', () => {
  it('finds a live attempt by PID + start token + marker, and by marker alone when starting', async () => {
    const id = `att-probe-${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], {
      stdio: 'ignore',
      env: { ...process.env, [ATTEMPT_MARKER_ENV]: id },
    });
    const pid = child.pid!;
    await vi.waitFor(() => expect(probeAttempt(record({ id })).state).toBe('live'), {
      timeout: 20_000,
      interval: 20,
    });
    const { startToken } = processIdentity(pid);
    expect(probeAttempt(record({ id }))).toEqual({ state: 'live', pid, startToken });
    expect(probeAttempt(record({ id, status: 'running', pid, startToken }))).toEqual({
      state: 'live',
      pid,
      startToken,
    });
    // Our PID with another attempt's marker is not the attempt.
    expect(probeAttempt(record({ status: 'running', pid: process.pid }))).toEqual({
      state: 'gone',
    });
    expect(probeAttempt(record({ id, status: 'finished', pid }))).toEqual({ state: 'gone' });
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(probeAttempt(record({ id, status: 'running', pid, startToken }))).toEqual({
      state: 'gone',
    });
  });
});
