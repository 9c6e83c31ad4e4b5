import type { Catalog } from '@switchyard/catalog';
import { newTaskState } from '@switchyard/core';
import { planTaskRoutes } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { ensureDecision } from './ensure-decision.js';

const target = (agent: string) => ({
  agent,
  model: `m-${agent}`,
  execution_class: 'cloud_model',
  runtime: { command: [agent, '{prompt}'], output_format: 'jsonl' },
});
const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);
const routes = (candidates: string[]) => Object.fromEntries(ROUTES.map((r) => [r, { candidates }]));

/** Claude-like targets `a`, `b`; codex targets `cx1`, `cx2`. Worker and review routes given. */
function catalogOf(worker: string[], review: string[]): Catalog {
  return {
    schema_version: 1,
    targets: {
      a: target('claude-code'),
      b: target('claude-code'),
      cx1: target('codex'),
      cx2: target('codex'),
    },
    routes: { worker: routes(worker), review: routes(review) },
  } as unknown as Catalog;
}

function runtime(catalog: Catalog, opts: { runWith?: string; pin?: string }) {
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const ctx = {
    catalog,
    catalogFacts: { source: 'test', revision: 'r'.repeat(64), targets: catalog.targets },
    options: opts.runWith ? { runWith: opts.runWith } : {},
    now: () => new Date('2026-12-01T12:00:00Z'),
    bus: { emit: (e: { type: string }) => events.push(e) },
  } as unknown as DispatchContext;
  const rt = {
    id: 'g/t',
    group: 'g',
    task: { route: 'cloud-G01', ...(opts.pin ? { target: opts.pin } : {}) },
    state: newTaskState('g/t'),
  } as unknown as TaskRuntime;
  return { ctx, rt, events };
}

function decide(catalog: Catalog, opts: { runWith?: string; pin?: string }) {
  const { ctx, rt, events } = runtime(catalog, opts);
  const worker = ensureDecision(ctx, rt, 'worker');
  const review = ensureDecision(ctx, rt, 'review');
  return { worker, review, blocked: rt.state.blocked, events };
}

describe('with, pins and the review (seed 003 `with codex`)', () => {
  it('`with <agent>` runs the worker on that agent’s first worker candidate of the route', () => {
    const { worker, review } = decide(catalogOf(['a', 'cx2', 'cx1'], ['cx2', 'a']), {
      runWith: 'codex',
    });
    expect(worker).toMatchObject({
      target: 'cx2',
      source: 'with',
      candidates: ['cx2', 'a', 'cx1'],
    });
    // The review keeps its route, without the worker's target: cx2 never reviews its own work.
    expect(review).toMatchObject({ target: 'a', source: 'route', candidates: ['a'] });
  });

  it('`with <target id>` and a pin choose only the worker; the review keeps its route', () => {
    const byId = decide(catalogOf(['a', 'b'], ['b', 'a']), { runWith: 'b' });
    expect(byId.worker).toMatchObject({ target: 'b', source: 'with' });
    expect(byId.review).toMatchObject({ target: 'a', source: 'route', candidates: ['a'] });
    const pinned = decide(catalogOf(['a', 'b'], ['a', 'b']), { pin: 'a', runWith: 'b' });
    expect(pinned.worker).toMatchObject({ target: 'a', source: 'pin' });
    expect(pinned.review).toMatchObject({ target: 'b', candidates: ['b'] });
  });

  it('reviews on the worker’s target only when the route has no other candidate', () => {
    const { worker, review } = decide(catalogOf(['a'], ['a']), {});
    expect(worker?.target).toBe('a');
    expect(review).toMatchObject({ target: 'a', candidates: ['a'] });
  });

  it('a review decided before the worker failed over onto its target is decided again', () => {
    const catalog = catalogOf(['a', 'b'], ['b', 'a']);
    const { ctx, rt } = runtime(catalog, {});
    expect(ensureDecision(ctx, rt, 'worker')?.target).toBe('a');
    expect(ensureDecision(ctx, rt, 'review')?.target).toBe('b');
    // Plan loop 2: the worker's quota ran out and it failed over to b, which did the work.
    rt.state.decisions.worker = { ...rt.state.decisions.worker!, target: 'b' };
    expect(ensureDecision(ctx, rt, 'review')).toMatchObject({ target: 'a', candidates: ['a'] });
    // With no other candidate the worker's own target stays the reviewer.
    const alone = runtime(catalogOf(['a', 'b'], ['b']), {});
    ensureDecision(alone.ctx, alone.rt, 'worker');
    alone.rt.state.decisions.worker = { ...alone.rt.state.decisions.worker!, target: 'b' };
    expect(ensureDecision(alone.ctx, alone.rt, 'review')?.target).toBe('b');
    expect(alone.rt.state.decisions.review?.target).toBe('b');
  });

  it('blocks the task, naming the catalog, when `with` names no target or serving agent', () => {
    const ghost = decide(catalogOf(['a'], ['a']), { runWith: 'ghost' });
    expect(ghost.worker).toBeUndefined();
    expect(ghost.blocked?.reason).toBe(
      'with "ghost" is neither a target id nor an agent of the catalog',
    );
    const absent = decide(catalogOf(['a', 'b'], ['a']), { runWith: 'codex' });
    expect(absent.blocked?.reason).toBe(
      'with "codex" serves no worker candidate of route cloud-G01',
    );
    expect(absent.blocked?.evidence[0]).toContain('targets of codex: cx1, cx2');
  });

  it('a YAML plan task routes the same way (the plan dry run shows worker and review)', () => {
    const catalog = catalogOf(['a', 'cx2', 'cx1'], ['cx2', 'a']);
    const now = new Date('2026-12-01T12:00:00Z');
    const [worker, review] = planTaskRoutes(
      catalog,
      { runner: 'code-runner', route: 'cloud-G01' },
      'codex',
      now,
    );
    expect(worker).toMatchObject({ stage: 'worker', target: 'cx2', source: 'with' });
    expect(review).toMatchObject({
      stage: 'review',
      target: 'a',
      source: 'route',
      candidates: ['a'],
    });
    expect(review?.why).toContain("other than the worker's cx2");
    const backend = planTaskRoutes(
      catalog,
      { runner: 'code-runner', route: 'cloud-G01', target: 'a' },
      'codex',
      now,
    );
    expect(backend.map((s) => s.target)).toEqual(['a', 'cx2']);
  });
});
