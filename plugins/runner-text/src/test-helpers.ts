import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnerSpec } from '@switchyard/core';
import { attemptEnvironment } from '@switchyard/runner-kit';

let seq = 0;

/** A runner spec for a tmp workspace + attempt dir (test helper, not exported by the package). */
export function testSpec(argv: string[], overrides: Partial<RunnerSpec> = {}): RunnerSpec {
  const root = mkdtempSync(join(tmpdir(), 'sy-runner-'));
  const attemptId = `t-${process.pid}-${Date.now()}-${++seq}`;
  const attemptDir = join(root, 'attempt');
  return {
    attemptId,
    attemptDir,
    agent: 'test-agent',
    outputFormat: 'text',
    argv,
    cwd: root,
    env: attemptEnvironment({ attemptId, role: 'worker', workspace: root, attemptDir }),
    stallTimeoutMs: 30_000,
    retryLoopTimeoutMs: 30_000,
    pollIntervalMs: 20,
    killGraceMs: 500,
    locator: {
      taskId: 'g/t1',
      role: 'worker',
      planLoop: 0,
      targetId: 'target-1',
      agent: 'test-agent',
      model: 'test-model',
      executionClass: 'local_model',
      runtime: { command: argv, argv, outputFormat: overrides.outputFormat ?? 'text' },
      catalog: { source: 'bundled', revision: 'test' },
    },
    ...overrides,
  };
}

/** Node 24 (vitest runs on it) running an inline script. */
export const nodeScript = (code: string): string[] => [process.execPath, '-e', code];
