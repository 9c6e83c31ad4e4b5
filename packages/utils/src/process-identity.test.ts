import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import {
  findProcessesWithMarker,
  findProcessesWithMarkers,
  findProcessesWithMarkersInTurns,
  hasEnvironmentMarker,
  isSameProcessAlive,
  processIdentity,
  readStartToken,
} from './process-identity.js';

/**
 * Runs `body` with a live `sleep` whose environment carries `SWITCHYARD_ATTEMPT_ID=marker`,
 * once its environment can be read; kills it after.
 */
async function withMarkedSleeper(marker: string, body: (pid: number) => Promise<void>) {
  const child = spawn('sleep', ['30'], {
    stdio: 'ignore',
    env: { ...process.env, SWITCHYARD_ATTEMPT_ID: marker },
  });
  try {
    const pid = child.pid!;
    await vi.waitFor(
      () => expect(hasEnvironmentMarker(pid, 'SWITCHYARD_ATTEMPT_ID', marker)).toBe(true),
      { timeout: 20_000, interval: 20 },
    );
    await body(pid);
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

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

  it('finds the processes of several markers in one pass, by whole entries only', async () => {
    const base = `multi-${process.pid}-${Date.now()}`;
    const marker = (n: number) => `${base}-${n}`;
    // A large environment (past the first read) and a value that only starts like a marker.
    const padding = 'x'.repeat(60_000); // twice: one variable may not pass 128 KiB
    const children = [0, 1].map((n) =>
      spawn('sleep', ['30'], {
        stdio: 'ignore',
        env: { ...process.env, PAD1: padding, PAD2: padding, SWITCHYARD_ATTEMPT_ID: marker(n) },
      }),
    );
    const lookalike = spawn('sleep', ['30'], {
      stdio: 'ignore',
      env: {
        ...process.env,
        SWITCHYARD_ATTEMPT_ID: `${marker(0)}-not`,
        X: `SWITCHYARD_ATTEMPT_ID=${marker(1)}`,
      },
    });
    try {
      const pids = children.map((c) => c.pid!);
      await vi.waitFor(
        () => {
          const found = findProcessesWithMarkers(
            'SWITCHYARD_ATTEMPT_ID',
            new Set([marker(0), marker(1), marker(2)]),
          );
          expect(found).toEqual(
            new Map([
              [marker(0), [pids[0]]],
              [marker(1), [pids[1]]],
            ]),
          );
        },
        { timeout: 20_000, interval: 20 },
      );
      expect(hasEnvironmentMarker(pids[1]!, 'SWITCHYARD_ATTEMPT_ID', marker(1))).toBe(true);
      expect(hasEnvironmentMarker(lookalike.pid!, 'SWITCHYARD_ATTEMPT_ID', marker(0))).toBe(false);
      expect(hasEnvironmentMarker(lookalike.pid!, 'SWITCHYARD_ATTEMPT_ID', marker(1))).toBe(false);
      expect(findProcessesWithMarkers('SWITCHYARD_ATTEMPT_ID', new Set())).toEqual(new Map());
    } finally {
      for (const child of [...children, lookalike]) child.kill('SIGKILL');
      await Promise.all([...children, lookalike].map((c) => once(c, 'exit')));
    }
  }, 30_000);

  it('passes over processes running before the time given, reading only later ones', async () => {
    const marker = `born-${process.pid}-${Date.now()}`;
    const spawnedAt = Date.now();
    await withMarkedSleeper(marker, async (pid) => {
      const markers = new Set([marker]);
      // started after `spawnedAt`: looked at, and found
      expect(
        findProcessesWithMarkers('SWITCHYARD_ATTEMPT_ID', markers, { bornSinceMs: spawnedAt }),
      ).toEqual(new Map([[marker, [pid]]]));
      // running long before a time a minute from now: its environment is not read at all
      expect(
        findProcessesWithMarkers('SWITCHYARD_ATTEMPT_ID', markers, {
          bornSinceMs: Date.now() + 60_000,
        }),
      ).toEqual(new Map());
      // the same scan spread over turns of the event loop, a few entries at a time
      expect(
        await findProcessesWithMarkersInTurns('SWITCHYARD_ATTEMPT_ID', markers, {
          bornSinceMs: spawnedAt,
          entriesPerTurn: 3,
        }),
      ).toEqual(new Map([[marker, [pid]]]));
      expect(
        await findProcessesWithMarkersInTurns('SWITCHYARD_ATTEMPT_ID', markers, {
          bornSinceMs: Date.now() + 60_000,
          entriesPerTurn: 3,
        }),
      ).toEqual(new Map());
    });
  }, 30_000);
  it('lists /proc again when an entry vanished before its look, finding the child it may have left', async () => {
    const marker = `relist-${process.pid}-${Date.now()}`;
    await withMarkedSleeper(marker, async (pid) => {
      const markers = new Set([marker]);
      // A first listing taken before the child existed: `1` (init) and a process that has
      // since ended (a PID above any pid_max has no entry), as when a listed parent forked the
      // child and exited before the scan reached it.
      const vanished = { listProc: () => ['1', '4194305'] };
      expect(findProcessesWithMarkers('SWITCHYARD_ATTEMPT_ID', markers, vanished)).toEqual(
        new Map([[marker, [pid]]]),
      );
      expect(
        await findProcessesWithMarkersInTurns('SWITCHYARD_ATTEMPT_ID', markers, {
          ...vanished,
          entriesPerTurn: 1,
        }),
      ).toEqual(new Map([[marker, [pid]]]));
      // Nothing vanished: the listing answers alone, /proc is not listed again.
      const complete = { listProc: () => ['1'] };
      expect(findProcessesWithMarkers('SWITCHYARD_ATTEMPT_ID', markers, complete)).toEqual(
        new Map(),
      );
      expect(
        await findProcessesWithMarkersInTurns('SWITCHYARD_ATTEMPT_ID', markers, {
          ...complete,
          entriesPerTurn: 1,
        }),
      ).toEqual(new Map());
    });
  }, 30_000);
});
