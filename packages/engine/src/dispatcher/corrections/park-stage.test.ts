import {
  type AttemptRecord,
  type Classification,
  type Decision,
  newTaskState,
} from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { applyFailure } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** A worker stage on candidates a, b (both used) and a clock the test moves. */
function stage(park = { maxParks: 3, maxWaitMs: 3_600_000 }) {
  let clock = Date.parse('2026-12-01T10:00:00Z');
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const ctx = {
    now: () => new Date(clock),
    monotonicMs: () => clock,
    workspace: '/ws',
    bus: { emit: (e: { type: string }) => events.push(e) },
    catalog: { targets: { a: { agent: 'x' }, b: { agent: 'y' } } },
    options: { retry: { baseDelayMs: 1000, maxDelayMs: 1000 }, park },
  } as unknown as DispatchContext;
  const state = newTaskState('g/t');
  const decision: Decision = {
    stage: 'worker',
    target: 'a',
    source: 'route',
    routeId: 'cloud-G01',
    catalogSource: 'flag',
    catalogRevision: 'r',
    targetSnapshot: {},
    candidates: ['a', 'b'],
    used: ['a', 'b'],
    decidedAt: new Date(clock).toISOString(),
  };
  state.decisions.worker = decision;
  const rt = { id: 'g/t', group: 'g', task: { writeSet: [] }, state } as unknown as TaskRuntime;
  /** The current target answers 429 "try again in `inSeconds`". */
  const quota = (inSeconds: number) => {
    const target = state.decisions.worker!.target;
    const record: AttemptRecord = {
      id: `w${state.attempts.length + 1}`,
      role: 'worker',
      planLoop: 1,
      target,
      attemptDir: `/ws/agent-task/.switchyard/attempts/w${state.attempts.length + 1}`,
      status: 'finished',
      startedAt: new Date(clock).toISOString(),
      result: 'provider-quota',
      evidence: [`API Error: 429 rate limited on ${target}`],
    };
    state.attempts.push(record);
    const verdict: Classification = {
      class: 'provider-quota',
      confidence: 'certain',
      evidence: [...record.evidence!],
      retryAfter: new Date(clock + inSeconds * 1000).toISOString(),
    };
    applyFailure(ctx, rt, 'worker', 'worker', record, verdict);
  };
  const advanceClock = (ms: number) => {
    clock += ms;
  };
  return { ctx, rt, state, events, quota, advanceClock };
}

describe('a stage whose candidates all answer with quota resets', () => {
  it('goes back at once to a candidate whose reset passed, never waiting on a later reset', () => {
    const { state, events, quota, advanceClock } = stage();
    state.cooldowns = { a: '2026-12-01T10:00:02Z' }; // a said "2s" earlier
    state.decisions.worker!.target = 'b';
    advanceClock(5_000); // b ran past a's reset
    quota(3600); // b: "try again in 1h"
    expect(state.decisions.worker?.target).toBe('a');
    expect(state.notBefore).toBeUndefined();
    expect(state.failures.worker).toBe(0); // not charged
    expect(state.parkSpent).toMatchObject({ stage: 'worker', parks: 1, waitedMs: 0 });
    expect(events.map((e) => e.type)).toEqual(['target.failover']);
    expect(events[0]).toMatchObject({ from: 'b', to: 'a', class: 'provider-quota' });
  });

  it("parks on the earliest reset, then blocks past the park cap with every candidate's quota evidence", () => {
    const { state, events, quota, advanceClock } = stage({ maxParks: 3, maxWaitMs: 3_600_000 });
    state.cooldowns = { b: '2026-12-01T10:00:30Z' };
    for (let round = 1; round <= 3; round++) {
      quota(10); // the current target resets in 10 s, the other one later or sooner
      expect(state.blocked, `round ${round}`).toBeUndefined();
      expect(state.parked?.budget).toEqual({
        parksLeft: 3 - round,
        waitLeftMs: 3_600_000 - (state.parkSpent?.waitedMs ?? 0),
      });
      advanceClock(Date.parse(state.notBefore!) - Date.parse(state.parked!.at));
      state.cooldowns[state.decisions.worker!.target === 'a' ? 'b' : 'a'] = new Date(
        Date.parse(state.notBefore!) + 20_000,
      ).toISOString();
    }
    expect(state.failures.worker).toBe(0);
    quota(10);
    expect(state.blocked).toMatchObject({ stage: 'worker', class: 'provider-quota' });
    expect(state.blocked?.reason).toMatch(
      /3 consecutive parks for quota resets \(park.maxParks 3\)/,
    );
    expect(state.blocked?.evidence).toHaveLength(2);
    expect(state.blocked?.evidence[0]).toMatch(
      /^a: quota resets at .* \(attempt w\d: provider-quota: API Error: 429 rate limited on a; agent-task\/\.switchyard\/attempts\/w\d\/locator\.json\)$/,
    );
    expect(state.blocked?.evidence[1]).toMatch(/^b: quota resets at /);
    expect(events.filter((e) => e.type === 'task.parked')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'task.blocked', task: 'g/t' });
  });

  it('blocks at once when the first reset lies past the longest wait', () => {
    const { state, quota } = stage({ maxParks: 10, maxWaitMs: 3_600_000 });
    state.cooldowns = { b: '2026-12-01T14:00:00Z' };
    quota(7200); // a: 2 h, b: 4 h, budget 1 h
    expect(state.blocked?.reason).toMatch(/past park.maxWaitSeconds \(1h\)/);
    expect(state.parked).toBeUndefined();
  });

  it('a pass of the stage starts its park budget over', async () => {
    const { rt, state, quota } = stage();
    state.cooldowns = { b: '2026-12-01T10:00:30Z' };
    quota(10);
    expect(state.parkSpent?.parks).toBe(1);
    const { advance } = await import('../advance.js');
    advance(rt, 'passed');
    expect(state.parkSpent).toBeUndefined();
  });
});
