import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../plugins/runner-types.js';
import type { DefinitionOfDone } from '../task/types.js';
import { judgeGate } from './stage-gate.js';
import type { CommandResult } from './types.js';
import { isSuccessfulFinalEvent, judgeUnobservedExit } from './unobserved-exit.js';
import { WorkLogWriter } from './work-log-writer.js';

const result = (over: Partial<CommandResult>): CommandResult => ({
  exitCode: 0,
  signal: null,
  stdout: '',
  tail: [],
  timedOut: false,
  ...over,
});
const done = (assertion: DefinitionOfDone['assertion']): DefinitionOfDone => ({
  argv: ['x'],
  command: 'x',
  assertion,
  line: 1,
});

describe('judgeGate', () => {
  it('checks each assertion form and says why it failed', async () => {
    expect(await judgeGate(done({ kind: 'exit-code', code: 0 }), result({}))).toEqual({
      passed: true,
      why: 'exit code 0',
    });
    expect(
      (
        await judgeGate(
          done({ kind: 'exit-code', code: 0 }),
          result({ exitCode: null, signal: 'SIGKILL' }),
        )
      ).why,
    ).toBe('expected exit code 0, got signal SIGKILL');
    expect(
      (await judgeGate(done({ kind: 'stdout-contains', text: 'ok' }), result({ stdout: 'all ok' })))
        .passed,
    ).toBe(true);
    expect(
      (
        await judgeGate(
          done({ kind: 'stdout-matches', pattern: '^\\d+ passed' }),
          result({ stdout: 'no' }),
        )
      ).why,
    ).toBe('stdout does not match /^\\d+ passed/');
    expect(
      (
        await judgeGate(
          done({ kind: 'stdout-matches', pattern: '(?<=^|\\n)(\\d+) passed\\b' }),
          result({ stdout: 'x\n12 passed' }),
        )
      ).passed,
    ).toBe(true);
    expect(
      (await judgeGate(done({ kind: 'exit-code', code: 0 }), result({ spawnError: 'ENOENT' })))
        .passed,
    ).toBe(false);
    expect(
      (await judgeGate(done({ kind: 'exit-code', code: 0 }), result({ timedOut: true }))).why,
    ).toBe('the command timed out');
  });

  it('a backtracking pattern is stopped at its time limit while the event loop keeps running', async () => {
    // /^(a+)+$/ on 31 bytes ran for over 40 s on the dispatcher's own thread
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 10);
    const started = performance.now();
    const verdict = await judgeGate(
      done({ kind: 'stdout-matches', pattern: '^(a+)+$' }),
      result({ stdout: `${'a'.repeat(30)}b` }),
      300,
    );
    clearInterval(ticker);
    expect(verdict.passed).toBe(false);
    expect(verdict.why).toMatch(
      /ran longer than 0\.3 s on 31 characters of output and was stopped/,
    );
    // The loop was free meanwhile (a frozen loop would have run no timer at all).
    expect(ticks).toBeGreaterThan(3);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

describe('judgeUnobservedExit', () => {
  const outcome = (
    lastEvent: Record<string, unknown> | undefined,
    exitObserved = false,
  ): RunOutcome =>
    ({
      exitCode: null,
      signal: null,
      exitObserved,
      evidence: {
        agent: 'x',
        outputFormat: 'jsonl',
        exitCode: null,
        signal: null,
        stderrTail: [],
        stdoutTail: [],
        terminalEvents: [],
        retryLines: [],
        ...(lastEvent ? { lastEvent } : {}),
      },
      counters: { stdoutBytes: 0, stderrBytes: 0, lines: 0, retryLines: 0, lastProgressAt: 0 },
      startedAt: new Date(),
      endedAt: new Date(),
    }) as RunOutcome;
  const fallback = {
    class: 'generic-error' as const,
    confidence: 'weak' as const,
    evidence: ['exit code null'],
    classifier: 'core',
  };

  it('judges a re-attached attempt by its final event, never silently successful', () => {
    expect(judgeUnobservedExit(outcome({ type: 'result', is_error: false }), fallback).class).toBe(
      'success',
    );
    expect(judgeUnobservedExit(outcome({ type: 'turn.completed' }), fallback).class).toBe(
      'success',
    );
    expect(judgeUnobservedExit(outcome({ type: 'assistant' }), fallback).class).toBe(
      'process-termination',
    );
    expect(judgeUnobservedExit(outcome(undefined), fallback).class).toBe('process-termination');
    // an observed exit or a classifier's own fault verdict is kept
    expect(judgeUnobservedExit(outcome({ is_error: false }, true), fallback)).toBe(fallback);
    const quota = {
      class: 'provider-quota' as const,
      confidence: 'certain' as const,
      evidence: ['429'],
      classifier: 'x',
    };
    expect(judgeUnobservedExit(outcome(undefined), quota)).toBe(quota);
    expect(isSuccessfulFinalEvent({ status: 'failed', error: { code: 1 } })).toBe(false);
  });
});

describe('WorkLogWriter', () => {
  const row = (kind: 'START' | 'FINISH', attempt: string) => ({
    kind,
    time: new Date('2026-01-01T00:00:00Z'),
    task: 'g/t',
    artifact: 'PLAN.md',
    planLoop: 1,
    role: 'worker' as const,
    attempt,
    agentModel: 'a/m',
    result: 'success',
    locator: 'l',
  });

  it('queues FINISH rows it cannot write, retries them in order, and refuses START rows', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-wlw-'));
    const writer = new WorkLogWriter(ws);
    // The group folder does not exist yet: every write fails.
    expect(() => writer.start('g', row('START', 'a0'))).toThrow(/Cannot write the work log/);
    writer.finish('g', row('FINISH', 'a1'));
    writer.finish('g', row('FINISH', 'a2'));
    expect(writer.failure).toMatch(/Cannot write the work log/);
    expect(writer.flush()).toBe(false);
    mkdirSync(join(ws, 'agent-task', 'g'), { recursive: true });
    writer.start('g', row('START', 'a3'));
    expect(writer.failure).toBeUndefined();
    const attempts = readFileSync(join(ws, 'agent-task/g/WORK_LOG.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| 2026'))
      .map((l) => l.split(' | ')[5]);
    expect(attempts).toEqual(['a1', 'a2', 'a3']);
    expect(writer.archive('g')).toBe(join(ws, 'agent-task/archive/g/work_log_1.log'));
    rmSync(ws, { recursive: true, force: true });
  });

  it('never writes rows into a log that was replaced after it was opened', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-wlw-'));
    mkdirSync(join(ws, 'agent-task', 'g'), { recursive: true });
    const writer = new WorkLogWriter(ws);
    const log = join(ws, 'agent-task/g/WORK_LOG.md');
    writer.start('g', row('START', 'a1'));
    // Deleted while open: the FINISH row goes to a new file at the path, not the lost inode.
    rmSync(log);
    writer.finish('g', row('FINISH', 'a1'));
    expect(readFileSync(log, 'utf8')).toContain('| FINISH |');
    // Replaced by a link: refused and queued (a control-plane failure), never followed.
    const victim = join(ws, 'victim.md');
    writeFileSync(victim, 'original\n');
    rmSync(log);
    symlinkSync(victim, log);
    writer.finish('g', row('FINISH', 'a2'));
    expect(writer.failure).toMatch(/symlink/);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    rmSync(ws, { recursive: true, force: true });
  });
});
