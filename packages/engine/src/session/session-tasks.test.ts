import type { RunEvent, SessionTask } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { sessionTaskAfter } from './session-tasks.js';

const at = '2026-12-01T02:00:00.000Z';
const base = { at, runId: 'r1', task: 'p/1' };

describe('sessionTaskAfter: the status.json snapshot of a session’s tasks', () => {
  it('follows a task from admission through its stages to done, keeping its plan loop', () => {
    const events = [
      { ...base, type: 'task.admitted', planLoop: 1 },
      {
        ...base,
        type: 'attempt.started',
        role: 'worker',
        planLoop: 1,
        attempt: 'a1',
        target: 'cx',
        agent: 'codex',
        model: 'm',
        attemptDir: '/x',
      },
      {
        ...base,
        type: 'attempt.retry-scheduled',
        role: 'worker',
        target: 'cx',
        delayMs: 4000,
        consecutiveFailures: 1,
        reason: 'generic-error: boom',
      },
      { ...base, type: 'task.blocked', stage: 'gate', reason: '10 consecutive…', evidence: [] },
      { ...base, type: 'task.archived', archiveDir: 'agent-task/archive/p/1' },
      { at, runId: 'r1', type: 'run.progress', counts: {}, elapsedMs: 1 },
    ] as unknown as RunEvent[];
    const seen: (SessionTask | undefined)[] = [];
    let current: SessionTask | undefined;
    for (const e of events) {
      const next = sessionTaskAfter(e, current);
      seen.push(next);
      if (next) current = next;
    }
    expect(seen).toEqual([
      { at, state: 'admitted', planLoop: 1 },
      { at, state: 'running', stage: 'worker', target: 'cx', planLoop: 1 },
      {
        at,
        state: 'waiting',
        stage: 'worker',
        target: 'cx',
        planLoop: 1,
        detail: 'retry in 4 s: generic-error: boom',
      },
      { at, state: 'blocked', stage: 'gate', planLoop: 1, detail: '10 consecutive…' },
      { at, state: 'done', planLoop: 1, detail: 'agent-task/archive/p/1' },
      undefined,
    ]);
  });
});
