import { Writable } from 'node:stream';
import type { RunEvent } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { createRunRenderer, formatCounts, formatEvent } from './run-renderer.js';

const at = '2026-11-30T12:00:00.000Z';
const base = { at, runId: 'r' };
/** A failover of g/t's worker from a to b for a quota, with this evidence. */
const failoverEvent = (evidence: string[]): RunEvent => ({
  ...base,
  type: 'target.failover',
  task: 'g/t',
  stage: 'worker',
  from: 'a',
  to: 'b',
  class: 'provider-quota',
  evidence,
});

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  (out as { isTTY?: boolean }).isTTY = isTTY;
  // Colour codes depend on the environment (picocolors colours under CI=true); cursor control
  // sequences such as `\x1b[2K` are what these tests check, so only colours are stripped.
  return { out, text: () => chunks.join('').replace(/\x1b\[[0-9;]*m/g, '') };
}

describe('run renderer', () => {
  it('formats significant events as one line each and skips the rest', () => {
    const line = (e: RunEvent) => formatEvent(e)?.replace(/\x1b\[[0-9;]*m/g, '');
    const failover = (evidence: string[]) => line(failoverEvent(evidence));
    expect(failover(['API Error: 429'])).toBe(
      'failover   g/t worker: a -> b (provider-quota: API Error: 429)',
    );
    // a JSON terminal event is shown by its message, not as the raw object
    expect(
      failover([
        '{"type":"result","is_error":true,"usage":{"input_tokens":0},"result":"API Error: 429 rate limited"}',
      ]),
    ).toBe('failover   g/t worker: a -> b (provider-quota: API Error: 429 rate limited)');
    expect(
      line({
        ...base,
        type: 'task.blocked',
        task: 'g/t',
        stage: 'worker',
        reason: '10 consecutive failures',
        evidence: [],
      }),
    ).toBe('blocked    g/t [worker] 10 consecutive failures');
    expect(
      line({
        ...base,
        type: 'task.archived',
        task: 'g/t',
        archiveDir: '/w/agent-task/archive/g/t',
      }),
    ).toBe('archived   g/t -> /w/agent-task/archive/g/t');
    expect(formatEvent({ ...base, type: 'task.admitted', task: 'g/t', planLoop: 1 })).toContain(
      'g/t (plan loop 1)',
    );
    expect(
      formatEvent({
        ...base,
        type: 'attempt.finished',
        task: 'g/t',
        role: 'worker',
        planLoop: 1,
        attempt: 'x',
        target: 'a',
        result: 'success',
        exitCode: 0,
        signal: null,
        evidence: [],
        durationMs: 5,
        attemptDir: '/d',
      }),
    ).toBeUndefined();
    expect(formatCounts({ running: 2, ready: 1, waiting: 3, blocked: 0, done: 4 }, 65_000)).toBe(
      '[running 2 · ready 1 · waiting 3 · blocked 0 · done 4 · 01:05]',
    );
  });

  it('redraws the status line in place on a terminal and never on a pipe', () => {
    const tty = capture(true);
    const renderer = createRunRenderer(tty.out);
    renderer.onEvent({
      ...base,
      type: 'run.started',
      workspace: '/w',
      pid: 1,
      catalog: { source: 'bundled', revision: 'f'.repeat(64) },
      maxParallel: 3,
      tasks: 2,
    });
    renderer.onEvent({
      ...base,
      type: 'run.progress',
      counts: { running: 1, ready: 0, waiting: 1, blocked: 0, done: 0 },
      elapsedMs: 10,
    });
    renderer.onEvent({ ...base, type: 'task.archived', task: 'g/t', archiveDir: '/a' });
    renderer.onEvent({
      ...base,
      type: 'run.finished',
      exitCode: 0,
      counts: { running: 0, ready: 0, waiting: 0, blocked: 0, done: 2 },
      elapsedMs: 20,
      blocked: [],
    });
    expect(tty.text()).toContain('\x1b[2K'); // the block is erased and redrawn in place
    expect(tty.text()).toContain('[running 1 · ready 0 · waiting 1 · blocked 0 · done 0');
    const pipe = capture(false);
    const plain = createRunRenderer(pipe.out);
    plain.onEvent({
      ...base,
      type: 'run.progress',
      counts: { running: 1, ready: 0, waiting: 0, blocked: 0, done: 0 },
      elapsedMs: 10,
    });
    plain.onEvent({ ...base, type: 'task.archived', task: 'g/t', archiveDir: '/a' });
    expect(pipe.text()).not.toContain('\r');
    expect(pipe.text()).not.toContain('[running');
    plain.summary(
      {
        exitCode: 3,
        archived: ['g/a'],
        blocked: [{ task: 'g/b', reason: 'why' }],
        controlFailures: [],
        elapsedMs: 1500,
      },
      { archive: '/w/agent-task/archive', state: '/w/agent-task/.switchyard' },
    );
    expect(pipe.text()).toContain('blocked g/b: why');
    expect(pipe.text()).toContain('exit code: 3');
  });

  it('on a terminal draws each running attempt: stage, target, elapsed, attempt n of budget, last output', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'sy-attempt-'));
    writeFileSync(
      join(dir, 'normalized-output.log'),
      'assistant: reading files\nassistant: editing src/a.ts\n',
    );
    const tty = capture(true);
    const renderer = createRunRenderer(tty.out);
    const started = (attempt: string): RunEvent => ({
      ...base,
      type: 'attempt.started',
      task: 'g/t',
      role: 'worker',
      planLoop: 1,
      attempt,
      target: 't-main',
      agent: 'fake',
      model: 'm',
      attemptDir: dir,
    });
    const progress: RunEvent = {
      ...base,
      type: 'run.progress',
      counts: { running: 1, ready: 0, waiting: 0, blocked: 0, done: 0 },
      elapsedMs: 10,
    };
    renderer.onEvent(started('a1'));
    renderer.onEvent(progress);
    expect(tty.text()).toMatch(
      /g\/t {2}worker +on t-main {2}\d+m?\d*s? {2}attempt 1\/10 {2}› assistant: editing src\/a\.ts/,
    );
    renderer.onEvent({
      ...base,
      type: 'attempt.finished',
      task: 'g/t',
      role: 'worker',
      planLoop: 1,
      attempt: 'a1',
      target: 't-main',
      result: 'generic-error',
      exitCode: 1,
      signal: null,
      evidence: [],
      durationMs: 5,
      attemptDir: dir,
    });
    renderer.onEvent({
      ...base,
      type: 'attempt.retry-scheduled',
      task: 'g/t',
      role: 'worker',
      target: 't-main',
      delayMs: 10,
      consecutiveFailures: 1,
      reason: 'exit 1',
    });
    renderer.onEvent(started('a2'));
    renderer.onEvent(progress);
    expect(tty.text()).toContain('attempt 2/10');
    // Not a terminal: no block at all.
    const pipe = capture(false);
    const plain = createRunRenderer(pipe.out);
    plain.onEvent(started('a1'));
    plain.onEvent(progress);
    expect(pipe.text()).not.toContain('attempt 1/10');
  });

  it("shows an agent's control characters as escapes: its output never drives the terminal", () => {
    // What an agent printed reaches the lines as evidence, reasons and questions quoting it.
    const hostile = 'boom \x1b]0;PWNED\x07 \x1b[2J\rcleared';
    const lines = [
      formatEvent(failoverEvent([hostile])),
      formatEvent({
        ...base,
        type: 'attempt.retry-scheduled',
        task: 'g/t',
        role: 'worker',
        target: 'a',
        delayMs: 0,
        consecutiveFailures: 1,
        reason: `generic-error: ${hostile}`,
      }),
      formatEvent({
        ...base,
        type: 'task.escalated',
        task: 'g/t',
        code: 'SY_BUDGET_EXHAUSTED',
        question: `The last evidence was: "${hostile}".`,
        bundle: 'b.json',
        blockedDownstream: [],
      }),
    ];
    const pipe = capture(false);
    createRunRenderer(pipe.out).summary(
      {
        exitCode: 3,
        archived: [],
        blocked: [{ task: 'g/t', reason: hostile }],
        controlFailures: [hostile],
        elapsedMs: 1,
      },
      { archive: '/a', state: '/s' },
    );
    for (const text of [...lines.map((l) => l ?? ''), pipe.text()]) {
      // colours are switchyard's own; nothing else of ESC, BEL or CR may reach the terminal
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).not.toMatch(/[\x07\x1b\r]/);
      expect(plain).toContain('boom \\x1b]0;PWNED\\x07 \\x1b[2J\\x0dcleared');
    }
  });
});
