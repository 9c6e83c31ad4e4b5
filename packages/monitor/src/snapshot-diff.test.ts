import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState, type RunEvent } from '@switchyard/core';
import { buildEscalation } from '@switchyard/engine';
import { openFsStore, recordResolution, writeEscalation } from '@switchyard/store-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MonitorSnapshot } from './snapshot.js';
import { SnapshotReader } from './snapshot.js';
import { type MonitorPatch, SnapshotDiffer } from './snapshot-diff.js';

const PLAN = (deps: string) => `---
route: cloud-G03
${deps}---
# task

## Modified Files Summary

- src/file.js

## Implementation Checklist

- [ ] do it
`;

let ws: string;
let dir: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'sy-monitor-diff-'));
  for (const [id, deps] of [
    ['g/a', ''],
    ['g/b', 'depends_on: [a]\n'],
    ['h/c', ''],
  ] as const) {
    mkdirSync(join(ws, 'agent-task', id), { recursive: true });
    writeFileSync(join(ws, 'agent-task', id, 'PLAN.md'), PLAN(deps));
  }
  dir = join(ws, 'agent-task', '.switchyard');
  mkdirSync(join(dir, 'tasks', 'g'), { recursive: true });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

/** What the page does with a patch (client/page.ts applyPatch), on plain data. */
function apply(s: MonitorSnapshot, p: MonitorPatch): MonitorSnapshot {
  const { usage, ...set } = p.set;
  const next = { ...s, ...set, generatedAt: p.generatedAt } as MonitorSnapshot;
  next.usage = { ...(usage ?? s.usage), byTask: { ...s.usage.byTask } } as MonitorSnapshot['usage'];
  for (const [id, t] of Object.entries(p.usageByTask)) {
    if (t) next.usage.byTask[id] = t;
    else delete next.usage.byTask[id];
  }
  const byId = new Map(s.tasks.map((t) => [t.id, t]));
  for (const t of p.tasks) byId.set(t.id, t);
  for (const id of p.removed) byId.delete(id);
  next.tasks = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return next;
}

const event = (e: Partial<RunEvent> & { type: RunEvent['type'] }): string =>
  `${JSON.stringify({ at: new Date().toISOString(), runId: 'r1', ...e })}\n`;

describe('snapshot patches', () => {
  it('a page that applies every patch holds exactly the snapshot the server read', async () => {
    const reader = new SnapshotReader(ws, openFsStore({ workspace: ws }));
    await reader.init();
    const differ = new SnapshotDiffer();
    let held = await reader.read();
    differ.next(held);
    const log = join(dir, 'events.jsonl');
    const steps: (() => void)[] = [
      () =>
        appendFileSync(
          log,
          event({
            type: 'run.started',
            pid: 1,
            workspace: ws,
            catalog: { source: 'bundled', revision: 'r' },
            maxParallel: 2,
            tasks: 3,
          } as never),
        ),
      () =>
        appendFileSync(
          log,
          event({
            type: 'attempt.finished',
            task: 'g/a',
            role: 'worker',
            planLoop: 1,
            attempt: 'a1',
            target: 'one',
            result: 'provider-quota',
            exitCode: 1,
            signal: null,
            evidence: ['429'],
            durationMs: 5,
            attemptDir: join(dir, 'attempts', 'a1'),
            usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.5 },
          } as never),
        ),
      () =>
        appendFileSync(
          log,
          event({
            type: 'target.failover',
            task: 'g/a',
            stage: 'worker',
            from: 'one',
            to: 'two',
            class: 'provider-quota',
            evidence: ['429'],
          } as never),
        ),
      () => {
        const state = newTaskState('g/b');
        state.phase = 'review';
        writeFileSync(join(dir, 'tasks', 'g', 'b.json'), JSON.stringify(state));
      },
      () => rmSync(join(ws, 'agent-task', 'h'), { recursive: true }),
    ];
    let patches = 0;
    for (const step of steps) {
      step();
      reader.invalidatePlans();
      const next = await reader.read();
      const patch = differ.next(next);
      if (patch) {
        patches += 1;
        expect(patch.base).toBe(patch.seq - 1);
        held = apply(held, patch);
      }
      expect({ ...held, generatedAt: '' }).toEqual({ ...next, generatedAt: '' });
    }
    expect(patches).toBe(steps.length);
    // Nothing changed: no patch, the numbering stays.
    const seq = differ.current;
    expect(differ.next(await reader.read())).toBeUndefined();
    expect(differ.current).toBe(seq);
  });

  it('a patch carries only the tasks that changed', async () => {
    const reader = new SnapshotReader(ws, openFsStore({ workspace: ws }));
    await reader.init();
    const differ = new SnapshotDiffer();
    differ.next(await reader.read());
    appendFileSync(
      join(dir, 'events.jsonl'),
      event({
        type: 'target.failover',
        task: 'h/c',
        stage: 'worker',
        from: 'one',
        to: 'two',
        class: 'provider-quota',
        evidence: ['429'],
      } as never),
    );
    const patch = differ.next(await reader.read());
    expect(patch?.tasks.map((t) => t.id)).toEqual(['h/c']);
    expect(patch?.removed).toEqual([]);
  });
});

describe('open escalations', () => {
  it('are in the snapshot (task, code, question, bundle) and in the patches, until resolved', async () => {
    const reader = new SnapshotReader(ws, openFsStore({ workspace: ws }));
    await reader.init();
    const differ = new SnapshotDiffer();
    let held = await reader.read();
    expect(held.escalations).toEqual([]);
    differ.next(held);
    // g/a blocks: its state says so and the dispatcher wrote its failure bundle.
    const state = newTaskState('g/a');
    const blocked = {
      reason: '10 consecutive failures of worker',
      stage: 'worker',
      evidence: ['exit 1'],
      at: '2026-12-01T00:00:00.000Z',
    };
    writeFileSync(join(dir, 'tasks', 'g', 'a.json'), JSON.stringify({ ...state, blocked }));
    const { bundle, interview } = buildEscalation({
      workspace: ws,
      task: {
        id: 'g/a',
        group: 'g',
        name: 'a',
        dir: join(ws, 'agent-task/g/a'),
        planFile: 'agent-task/g/a/PLAN.md',
      },
      state: { ...state, blocked },
      downstream: ['g/b'],
      bundlePath: 'agent-task/.switchyard/escalations/g/a.failure-bundle.json',
      now: new Date('2026-12-01T00:00:01.000Z'),
    });
    await writeEscalation(dir, bundle, interview);
    const open = await reader.read();
    expect(open.escalations).toEqual([
      expect.objectContaining({
        task: 'g/a',
        code: 'SY_BUDGET_EXHAUSTED',
        question: expect.stringContaining('Task g/a failed its worker stage 10 times in a row'),
        bundle: 'agent-task/.switchyard/escalations/g/a.failure-bundle.json',
        blockedDownstream: ['g/b'],
      }),
    ]);
    const opened = differ.next(open);
    expect(opened?.set.escalations).toEqual(open.escalations);
    held = apply(held, opened!);
    expect(held.escalations).toEqual(open.escalations);
    // A human answers: the escalation leaves the page with the next patch.
    await recordResolution(dir, 'g/a', 'skip', new Date('2026-12-01T00:01:00.000Z'));
    const resolved = await reader.read();
    expect(resolved.escalations).toEqual([]);
    held = apply(held, differ.next(resolved)!);
    expect(held.escalations).toEqual([]);
  });
});
