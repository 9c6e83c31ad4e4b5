import type { BacklogView } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { stuckInBacklog } from './backlog-stuck.js';
import type { SharedRun } from './shared-run.js';

/**
 * Says what the run waits for on the other machines (`task.waiting`, reason `backlog`), once
 * per change: each in-scope task this run does not hold that is not archived, with who holds
 * it, what it waits on, or that it is blocked behind a blocked task (then the run ends).
 */
export function announceBacklogWaits(
  ctx: DispatchContext,
  shared: SharedRun,
  inScope: (rt: TaskRuntime) => boolean,
): void {
  const stuck = stuckInBacklog(shared.status);
  for (const rt of ctx.tasks.values()) {
    const view = shared.status.get(rt.id);
    if (!view || !inScope(rt) || shared.owned.has(rt.id)) continue;
    const detail = backlogWait(view, shared.status, stuck);
    const key = detail && `backlog:${detail}`;
    if (key === rt.waitingOn) continue;
    rt.waitingOn = key;
    if (detail) ctx.bus.emit({ type: 'task.waiting', task: rt.id, reason: 'backlog', detail });
  }
}

function backlogWait(
  view: BacklogView,
  all: ReadonlyMap<string, BacklogView>,
  stuck: ReadonlySet<string>,
): string | undefined {
  const open = (view.dependsOn ?? []).filter((dep) => all.get(dep)?.status !== 'archived');
  switch (view.status) {
    case 'taken':
      return `taken by ${view.holder ?? 'another dispatcher'} (this run takes it over if that lease expires)`;
    case 'ready':
      return 'ready in the shared backlog: the next dispatcher with room takes it';
    case 'waiting':
      if (open.length === 0) return 'its dependencies are archived: the backlog delivers it next';
      return stuck.has(view.task)
        ? `waits on ${open.join(', ')}, blocked or never published: nothing moves it without a human`
        : `waits on ${open.join(', ')} in the shared backlog`;
    default:
      return undefined;
  }
}
