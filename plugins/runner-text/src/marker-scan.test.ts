import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PROCESS_MARKER_VAR } from '@switchyard/runner-kit';
import { describe, expect, it, vi } from 'vitest';
import { processesWithMarker } from './marker-scan.js';

describe('the shared marker scan', () => {
  it('answers requests made together, each with the processes of its own marker', async () => {
    const base = `scan-${process.pid}-${Date.now()}`;
    const children = ['a', 'b'].map((n) =>
      spawn('sleep', ['30'], {
        stdio: 'ignore',
        env: { ...process.env, [PROCESS_MARKER_VAR]: `${base}-${n}` },
      }),
    );
    try {
      const [a, b] = children.map((c) => c.pid!);
      await vi.waitFor(
        async () =>
          expect(
            await Promise.all([
              processesWithMarker(PROCESS_MARKER_VAR, `${base}-a`),
              processesWithMarker(PROCESS_MARKER_VAR, `${base}-b`),
              processesWithMarker(PROCESS_MARKER_VAR, `${base}-a`),
              processesWithMarker(PROCESS_MARKER_VAR, `${base}-none`),
            ]),
          ).toEqual([[a], [b], [a], []]),
        { timeout: 20_000, interval: 20 },
      );
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map((c) => once(c, 'exit')));
    }
  }, 30_000);
});
