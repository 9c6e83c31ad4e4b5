import {
  type DefinitionOfDone,
  type RunOutcome,
  SwitchyardError,
  type WorkLogPort,
} from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { isSuccessfulFinalEvent, judgeUnobservedExit } from './agent/unobserved-exit.js';
import { judgeGate } from './checks/stage-gate.js';
import { WorkLogWriter } from './landing/work-log-writer.js';
import type { CommandResult } from './types.js';

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
    // The loop was free meanwhile: the 10 ms ticker is due before the 300 ms limit's timer, so
    // a free loop ran it at least once; a loop frozen by the pattern would have run none.
    expect(ticks).toBeGreaterThan(0);
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

  it('queues FINISH rows it cannot write, retries them in order, and refuses START rows', async () => {
    const store = createMemoryStore();
    let broken = true;
    const port: WorkLogPort = {
      ...store.workLog,
      append: (group, rows) =>
        broken
          ? Promise.reject(
              new SwitchyardError('SY_WORK_LOG', 'Cannot write the work log: disk full'),
            )
          : store.workLog.append(group, rows),
    };
    const writer = new WorkLogWriter(port);
    await expect(writer.start('g', row('START', 'a0'))).rejects.toThrow(
      /Cannot write the work log/,
    );
    writer.finish('g', row('FINISH', 'a1'));
    writer.finish('g', row('FINISH', 'a2'));
    expect(await writer.flush()).toBe(false);
    expect(writer.failure).toMatch(/Cannot write the work log/);
    broken = false;
    await writer.start('g', row('START', 'a3'));
    expect(writer.failure).toBeUndefined();
    expect((await store.workLog.read('g')).map((r) => r.attempt)).toEqual(['a1', 'a2', 'a3']);
    expect(await writer.archive('g')).toBe('memory:work-log/g/1');
  });
});
