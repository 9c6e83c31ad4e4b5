import { type BacklogView, parseLeaseHolder } from '@switchyard/core';
import type { StatusReport } from '@switchyard/engine';
import type { MonitorTask } from './snapshot-tasks.js';

/** `<host> pid <pid>` of a lease holder (as events name their machine), or the holder as is. */
export function machineOf(holder: string | undefined): string | undefined {
  if (!holder) return undefined;
  const who = parseLeaseHolder(holder);
  return who ? `${who.host} pid ${who.pid}` : holder;
}

/**
 * On a shared store the backlog, not this clone's task folders, says where each task stands:
 * a task archived or blocked on another machine is so here before its archive reaches this
 * clone, and a task this clone never had shows too. Cards built from this clone's plans keep
 * their details when the backlog agrees; every card of the backlog names its machine.
 */
export function applyBacklog(
  tasks: MonitorTask[],
  backlog: readonly BacklogView[],
): { tasks: MonitorTask[]; counts: StatusReport['counts'] } {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const entry of backlog) {
    const machine = machineOf(entry.holder);
    const on = machine ? ` on ${machine}` : '';
    const known = byId.get(entry.task);
    const card: MonitorTask = known ?? {
      id: entry.task,
      group: entry.task.includes('/') ? entry.task.slice(0, entry.task.indexOf('/')) : entry.task,
      dependsOn: entry.dependsOn ?? [],
      writeSet: [],
      depth: 0,
      state: 'waiting',
      why: '',
      planLoop: 1,
      history: [],
    };
    if (machine) card.machine = machine;
    const was = card.state;
    if (entry.status === 'archived') {
      card.state = 'done';
      if (was !== 'done') card.why = `archived${on}`;
      delete card.running;
      delete card.waiting;
      delete card.blocked;
    } else if (entry.status === 'blocked') {
      card.state = 'blocked';
      if (was !== 'blocked') card.why = `blocked${on}`;
      delete card.running;
      delete card.waiting;
    } else if (entry.status === 'taken') {
      card.state = 'running';
      if (was !== 'running') card.why = `running${on}`;
      delete card.waiting;
      delete card.blocked;
    } else {
      card.state = 'waiting';
      if (was !== 'waiting')
        card.why =
          entry.status === 'ready'
            ? 'ready in the shared backlog: the next free machine takes it'
            : `waiting in the shared backlog for ${(entry.dependsOn ?? []).join(', ') || 'its dependencies'}`;
      delete card.running;
      delete card.blocked;
    }
    if (!known) {
      tasks.push(card);
      byId.set(card.id, card);
    }
  }
  const counts = { running: 0, waiting: 0, blocked: 0, done: 0 };
  for (const t of tasks) counts[t.state] += 1;
  return { tasks, counts };
}
