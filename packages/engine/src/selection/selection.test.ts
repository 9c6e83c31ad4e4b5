import { FAILURE_CLASSES, isFailoverClass } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { type CatalogFacts, checkDecision, decideTarget } from './decide.js';
import { backoffDelay, decideAfterFailure, type FailureInput } from './on-failure.js';

const FAILOVER_CLASSES = FAILURE_CLASSES.filter(isFailoverClass);
const NON_FAILOVER_CLASSES = FAILURE_CLASSES.filter((c) => !isFailoverClass(c));

const targets = {
  a: { agent: 'agent-a', model: 'm1', runtime: { command: ['a', '{prompt}'] } },
  b: { agent: 'agent-b', model: 'm2', runtime: { command: ['b', '{prompt}'] } },
  c: { agent: 'agent-c', model: 'm3', runtime: { command: ['c', '{prompt}'] } },
};
const catalog: CatalogFacts = { source: 'bundled', revision: 'r'.repeat(64), targets };
const now = new Date('2026-11-30T12:00:00Z');
const retry = { baseDelayMs: 1000, maxDelayMs: 8000 };

const decide = () =>
  decideTarget({
    stage: 'worker',
    routeId: 'cloud-G01',
    routeCandidates: ['a', 'b', 'c'],
    catalog,
    now,
  });

function fail(over: Partial<FailureInput>): ReturnType<typeof decideAfterFailure> {
  return decideAfterFailure({
    decision: decide(),
    targets,
    failureClass: 'generic-error',
    evidence: ['line'],
    consecutiveFailures: 1,
    cooldowns: {},
    retry,
    now,
    ...over,
  });
}

describe('decideTarget', () => {
  it('takes the first route candidate and records catalog evidence', () => {
    const d = decide();
    expect(d).toMatchObject({
      target: 'a',
      source: 'route',
      candidates: ['a', 'b', 'c'],
      used: ['a'],
    });
    expect(d.catalogRevision).toBe(catalog.revision);
    expect(d.targetSnapshot).toBe(targets.a);
  });

  it('prefers the PLAN pin over --with over the route, keeping the route as failover after it', () => {
    const base = {
      stage: 'review' as const,
      routeId: 'local-G02',
      routeCandidates: ['a', 'b'],
      catalog,
    };
    expect(decideTarget({ ...base, pin: 'c', runWith: 'b' })).toMatchObject({
      target: 'c',
      source: 'pin',
      candidates: ['c', 'a', 'b'],
      used: ['c'],
    });
    expect(decideTarget({ ...base, runWith: 'b' })).toMatchObject({
      target: 'b',
      source: 'with',
      candidates: ['b', 'a'],
    });
  });

  it('refuses an unknown pin and an empty route with the known targets in the hint', () => {
    expect(() =>
      decideTarget({
        stage: 'worker',
        routeId: 'cloud-G01',
        routeCandidates: ['a'],
        pin: 'zz',
        catalog,
      }),
    ).toThrow(/pins target "zz"/);
    expect(() =>
      decideTarget({ stage: 'worker', routeId: 'cloud-G01', routeCandidates: [], catalog }),
    ).toThrow(/no candidate/);
  });
});

describe('checkDecision', () => {
  it('is valid only while revision and target snapshot match', () => {
    const d = decide();
    expect(checkDecision(d, catalog)).toEqual({ valid: true });
    // key order does not matter for the snapshot
    const reordered = {
      ...catalog,
      targets: { ...targets, a: { runtime: targets.a.runtime, model: 'm1', agent: 'agent-a' } },
    };
    expect(checkDecision(d, reordered)).toEqual({ valid: true });
    const changed = checkDecision(d, { ...catalog, revision: 's'.repeat(64) });
    expect(changed).toMatchObject({
      valid: false,
      oldRevision: 'r'.repeat(64),
      newRevision: 's'.repeat(64),
    });
    const gone = checkDecision(d, {
      ...catalog,
      revision: 's'.repeat(64),
      targets: { b: targets.b },
    });
    expect(gone.valid === false && gone.reason).toMatch(/target a of the worker decision is gone/);
  });
});

describe('decideAfterFailure', () => {
  it('advances each failover class at once to the next unused candidate', () => {
    for (const failureClass of FAILOVER_CLASSES) {
      const action = fail({ failureClass });
      expect(action).toMatchObject({
        kind: 'failover',
        from: 'a',
        to: 'b',
        notBefore: now.toISOString(),
      });
      if (action.kind === 'failover') {
        expect(action.decision.used).toEqual(['a', 'b']);
        expect(action.decision.targetSnapshot).toBe(targets.b);
      }
    }
  });

  it('keeps the target for every other class and backs off exponentially', () => {
    for (const failureClass of NON_FAILOVER_CLASSES) {
      expect(fail({ failureClass, consecutiveFailures: 3 })).toMatchObject({
        kind: 'retry',
        target: 'a',
        delayMs: 4000,
      });
    }
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelay(n, retry))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(backoffDelay(0, retry)).toBe(0);
  });

  it('blocks at the stage budget with the evidence', () => {
    const action = fail({ consecutiveFailures: 10, evidence: ['exit 1: boom'] });
    expect(action).toEqual({
      kind: 'block',
      reason: '10 consecutive failures in the worker stage (last: generic-error on a)',
      evidence: ['exit 1: boom'],
      consecutiveFailures: 10,
    });
    expect(fail({ consecutiveFailures: 9 }).kind).toBe('retry');
  });

  it('with every candidate used, stays on the current target (no wrap-around), honouring its retryAfter cooldown', () => {
    const d = { ...decide(), target: 'c', used: ['a', 'b', 'c'] };
    const cooldowns = { a: '2026-11-30T12:10:00Z', b: '2026-11-30T12:05:00Z' };
    const action = fail({
      decision: d,
      failureClass: 'provider-quota',
      retryAfter: '2026-11-30T13:00:00Z',
      cooldowns,
    });
    expect(action).toMatchObject({
      kind: 'retry',
      target: 'c',
      notBefore: '2026-11-30T13:00:00.000Z',
      delayMs: 3_600_000,
    });
    if (action.kind === 'retry') {
      expect(action.cooldowns.c).toBe('2026-11-30T13:00:00Z');
      expect(action.decision).toBe(d);
    }
    // an earlier-usable used candidate is never gone back to
    expect(
      fail({ decision: { ...d, target: 'b' }, failureClass: 'context-limit', cooldowns }),
    ).toMatchObject({ kind: 'retry', target: 'b', notBefore: '2026-11-30T12:05:00.000Z' });
    // a single pinned target waits for its own reset
    const pinned = decideTarget({
      stage: 'worker',
      routeId: 'x',
      routeCandidates: [],
      pin: 'a',
      catalog,
    });
    expect(
      fail({
        decision: pinned,
        failureClass: 'provider-quota',
        retryAfter: '2026-11-30T12:30:00Z',
      }),
    ).toMatchObject({
      kind: 'retry',
      target: 'a',
      delayMs: 30 * 60_000,
    });
  });

  it('never fails over when failover is not allowed (self-check keeps its context)', () => {
    expect(fail({ failureClass: 'provider-quota', allowFailover: false })).toMatchObject({
      kind: 'retry',
      target: 'a',
    });
  });
});
