import { describe, expect, it } from 'vitest';
import { applyBacklog, machineOf } from './shared-tasks.js';
import type { MonitorTask } from './snapshot.js';

const card = (id: string, state: MonitorTask['state'], why: string): MonitorTask => ({
  id,
  group: 'g',
  dependsOn: [],
  writeSet: [`${id}.txt`],
  depth: 0,
  state,
  why,
  planLoop: 1,
  history: [],
  ...(state === 'waiting' ? { waiting: { kind: 'deps' } } : {}),
});

describe('the shared backlog on the page', () => {
  it('says where each task stands and who ran it, whatever this clone has; counts follow', () => {
    const a = 'host-a/41/-/run-1';
    const { tasks, counts } = applyBacklog(
      [
        card('g/archived-elsewhere', 'waiting', 'waits for its dependencies'),
        card('g/blocked-here', 'blocked', 'worker failed: exit 2'),
        card('g/local-only', 'waiting', 'not published'),
      ],
      [
        { task: 'g/archived-elsewhere', status: 'archived', holder: a },
        { task: 'g/blocked-here', status: 'blocked', holder: a },
        { task: 'g/running-elsewhere', status: 'taken', holder: 'host-b/7/-/run-2' },
        { task: 'g/next', status: 'waiting', dependsOn: ['g/running-elsewhere'] },
      ],
    );
    const byId = new Map(tasks.map((t) => [t.id, t]));
    expect(byId.get('g/archived-elsewhere')).toMatchObject({
      state: 'done',
      why: 'archived on host-a pid 41',
      machine: 'host-a pid 41',
      writeSet: ['g/archived-elsewhere.txt'],
    });
    expect(byId.get('g/archived-elsewhere')?.waiting).toBeUndefined();
    // the clone's detail stays where the backlog agrees
    expect(byId.get('g/blocked-here')).toMatchObject({
      state: 'blocked',
      why: 'worker failed: exit 2',
    });
    // a task this clone never had shows, with its dependencies
    expect(byId.get('g/running-elsewhere')).toMatchObject({
      state: 'running',
      machine: 'host-b pid 7',
    });
    expect(byId.get('g/next')).toMatchObject({
      state: 'waiting',
      dependsOn: ['g/running-elsewhere'],
    });
    expect(byId.get('g/local-only')?.state).toBe('waiting');
    expect(counts).toEqual({ running: 1, waiting: 2, blocked: 1, done: 1 });
  });

  it('names a holder it cannot parse as it is', () => {
    expect(machineOf('odd holder')).toBe('odd holder');
    expect(machineOf(undefined)).toBeUndefined();
  });
});
