import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAgeMs } from './process-age.js';
import { readStartToken } from './process-identity.js';

describe('processAgeMs', () => {
  it('reads a process age from its start token on the boot clock', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const token = readStartToken(child.pid!);
      const age = processAgeMs(token);
      expect(age).toBeGreaterThanOrEqual(0);
      // our own process started before the child: it is at least as old
      expect(processAgeMs(readStartToken(process.pid))!).toBeGreaterThanOrEqual(age! - 10);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is undefined for a token of another boot or another form', () => {
    expect(processAgeMs(undefined)).toBeUndefined();
    expect(processAgeMs('another-boot:12345')).toBeUndefined();
    expect(processAgeMs('garbage')).toBeUndefined();
  });
});
