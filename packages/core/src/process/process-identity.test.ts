import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import {
  findProcessesWithMarker,
  hasEnvironmentMarker,
  isSameProcessAlive,
  processIdentity,
  readStartToken,
} from './process-identity.js';

describe('process identity', () => {
  it('reads a stable start token for a live process and none for a dead one', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid!;
    const identity = processIdentity(pid);
    expect(identity.startToken).toMatch(/^.+:\d+$/);
    expect(readStartToken(pid)).toBe(identity.startToken);
    expect(isSameProcessAlive(identity)).toBe(true);
    expect(isSameProcessAlive({ pid, startToken: 'other-boot:1' })).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(isSameProcessAlive(identity)).toBe(false);
  });

  it('finds a process by the marker in its environment', async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], {
      stdio: 'ignore',
      env: { ...process.env, SWITCHYARD_ATTEMPT_ID: marker },
    });
    const pid = child.pid!;
    // the exec into `sleep` may not have happened yet; wait until the environment is readable
    await vi.waitFor(
      () => expect(hasEnvironmentMarker(pid, 'SWITCHYARD_ATTEMPT_ID', marker)).toBe(true),
      { timeout: 20_000, interval: 20 },
    );
    expect(hasEnvironmentMarker(pid, 'SWITCHYARD_ATTEMPT_ID', marker)).toBe(true);
    expect(hasEnvironmentMarker(pid, 'SWITCHYARD_ATTEMPT_ID', 'other')).toBe(false);
    expect(findProcessesWithMarker('SWITCHYARD_ATTEMPT_ID', marker)).toEqual([pid]);
    child.kill('SIGKILL');
    await once(child, 'exit');
  });
});
