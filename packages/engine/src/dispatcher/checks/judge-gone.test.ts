import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptRecord } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import type { DispatchContext } from '../types.js';
import { judgeGoneAttempt } from './judge-gone.js';

/** An ended attempt whose agent printed a successful final event, with the given locator end. */
function goneAttempt(end: Record<string, unknown>): {
  ctx: DispatchContext;
  record: AttemptRecord;
} {
  const dir = join(mkdtempSync(join(tmpdir(), 'sy-judge-gone-')), 'attempt');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'stdout.raw'),
    `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done' })}\n`,
  );
  writeFileSync(
    join(dir, 'locator.json'),
    JSON.stringify({
      schemaVersion: 1,
      attemptId: 'a1',
      taskId: 'g/t',
      role: 'review',
      planLoop: 1,
      targetId: 't',
      agent: 'agent-x',
      model: 'm',
      executionClass: 'local_model',
      runtime: { command: ['x'], argv: ['x'], outputFormat: 'jsonl', environment: {} },
      catalog: { source: 'bundled', revision: 'r' },
      process: { pid: 4242, markerName: 'SWITCHYARD_ATTEMPT_ID', marker: 'a1', pgid: 4242 },
      workspace: { realpath: '/w', dev: 1, ino: 2 },
      startedAt: '2026-12-01T10:00:00.000Z',
      result: 'success',
      evidence: [],
      ...end,
    }),
  );
  const ctx = {
    catalog: { targets: {} },
    options: { plugins: { classifiersFor: () => [] }, timeZone: 'UTC' },
    now: () => new Date('2026-12-01T10:01:00.000Z'),
  } as unknown as DispatchContext;
  const record = {
    id: 'a1',
    role: 'review',
    planLoop: 1,
    target: 't',
    attemptDir: dir,
    status: 'running',
    startedAt: '2026-12-01T10:00:00.000Z',
  } as AttemptRecord;
  return { ctx, record };
}

describe('judging an attempt whose process is gone', () => {
  it('judges a re-attached exit (seen only as the process vanishing) by its final event, every time', async () => {
    // A first dispatcher re-attached, saw the process vanish and recorded that; it died before
    // persisting its verdict. The next one must reach the same verdict: success.
    const { ctx, record } = goneAttempt({
      endedAt: '2026-12-01T10:00:05.000Z',
      exitCode: null,
      signal: null,
      exitObserved: false,
    });
    expect((await judgeGoneAttempt(ctx, record)).class).toBe('success');
  });

  it('judges an observed exit by its status', async () => {
    const { ctx, record } = goneAttempt({
      endedAt: '2026-12-01T10:00:05.000Z',
      exitCode: 0,
      signal: null,
      exitObserved: true,
    });
    expect((await judgeGoneAttempt(ctx, record)).class).toBe('success');
  });
});
