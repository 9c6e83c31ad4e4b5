import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { createMemoryStore } from '@switchyard/store-memory';
import { describe, expect, it } from 'vitest';
import { buildEscalation } from '../escalation/build-bundle.js';
import { buildStatus } from './build-status.js';
import { gatherStatus } from './gather-status.js';
import { readStatusFacts } from './status-facts.js';

function blockedState(task: string, at: string) {
  return {
    ...newTaskState(task),
    blocked: { reason: '10 consecutive failures of worker', stage: 'worker', evidence: [], at },
  };
}

describe('status reads its stored facts through the store', () => {
  it('task states, claims, the event log and only the open escalations', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'sy-status-facts-'));
    mkdirSync(join(workspace, 'agent-task', 'g'), { recursive: true });
    const store = createMemoryStore();
    const open = blockedState('g/open', '2026-12-01T00:01:00.000Z');
    const stale = blockedState('g/stale', '2026-12-01T00:05:00.000Z');
    await store.tasks.put(open, { expected: 0 });
    await store.tasks.put(stale, { expected: 0 });
    await store.claims.tryClaim('g/open', ['src/a.ts']);
    await store.events.append({ type: 'run.started', at: '2026-12-01T00:00:00.000Z' } as never);
    for (const [state, blockedAt] of [
      [open, open.blocked.at],
      // an escalation of an earlier block of the task: no longer open
      [stale, '2026-12-01T00:02:00.000Z'],
    ] as const) {
      const { bundle, interview } = buildEscalation({
        workspace,
        task: {
          id: state.task,
          group: 'g',
          name: state.task.slice(2),
          dir: join(workspace, 'agent-task', state.task),
          planFile: `agent-task/${state.task}/PLAN.md`,
        },
        state: { ...state, blocked: { ...state.blocked, at: blockedAt } },
        downstream: [],
        bundlePath: store.escalations.locate(state.task).bundle,
        now: new Date('2026-12-01T00:06:00.000Z'),
        secrets: [],
      });
      await store.escalations.put(bundle, interview);
    }

    const facts = await readStatusFacts(store);
    expect(facts.states.map((s) => s.task)).toEqual(['g/open', 'g/stale']);
    expect(facts.claims).toMatchObject([{ taskId: 'g/open', paths: ['src/a.ts'] }]);
    expect(facts.events.map((e) => e.type)).toEqual(['run.started']);
    expect(facts.escalations.map((e) => e.task)).toEqual(['g/open']);
    expect(facts.escalations[0]).toMatchObject({ stage: 'worker', since: open.blocked.at });

    const input = gatherStatus(workspace, facts, new Date('2026-12-01T00:07:00.000Z'));
    expect(input.claims.get('src/a.ts')).toBe('g/open');
    expect(buildStatus(input).escalations.map((e) => e.task)).toEqual(['g/open']);
  });
});
