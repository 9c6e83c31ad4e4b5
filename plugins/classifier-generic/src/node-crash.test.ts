import { spawnSync } from 'node:child_process';
import { buildTerminalEvidence, classifyEvidence } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import { genericClassifier } from './generic-classifier.js';

const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };

describe('a crashing agent program is not a provider fault', () => {
  it('classifies a real Node "Cannot find module" crash as generic-error', async () => {
    // A real crash: its stack frames name `node:internal/...` and line:column numbers that
    // once matched the gRPC INTERNAL status and HTTP 50x patterns.
    const crash = spawnSync(process.execPath, ['/nonexistent/switchyard-agent/dist/bin.js'], {
      encoding: 'utf8',
    });
    expect(crash.status).not.toBe(0);
    const stderrTail = crash.stderr.split('\n').filter(Boolean);
    expect(stderrTail.some((line) => line.includes('node:internal'))).toBe(true);
    const evidence = buildTerminalEvidence({
      agent: 'some-cli',
      outputFormat: 'text',
      exitCode: crash.status,
      stderrTail,
    });
    const verdict = await classifyEvidence(evidence, [genericClassifier()], ctx);
    expect(verdict.class).toBe('generic-error');
  });

  it('still reads a 500 from the provider on an API Error line', async () => {
    const evidence = buildTerminalEvidence({
      agent: 'some-cli',
      outputFormat: 'text',
      exitCode: 1,
      stderrTail: ['    at handler (file.js:500:12)', 'API Error: 500 Internal Server Error'],
    });
    expect(await genericClassifier().classify(evidence, ctx)).toMatchObject({
      class: 'provider-connection',
      evidence: ['API Error: 500 Internal Server Error'],
    });
  });
});
