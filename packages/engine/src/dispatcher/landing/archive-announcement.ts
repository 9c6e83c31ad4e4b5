import type { EventLogPort } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * Emits `task.archived` exactly once per archive, across crashes. Callers announce *before*
 * the task's state is recorded `done`: a crash before the announcement leaves the task in its
 * archive phase, so the next run repeats the (idempotent) archive and announces it then; a
 * crash between the announcement and the state write is caught here, because a resumed archive
 * first looks for the announcement already in the event log. (Recording `done` first lost the
 * event for good when the dispatcher died in between.)
 */
export async function announceArchived(
  ctx: DispatchContext,
  rt: TaskRuntime,
  archiveDir: string,
  resumed: boolean,
): Promise<void> {
  if (resumed && (await archiveAnnounced(ctx.store.events, rt.id))) return;
  ctx.bus.emit({ type: 'task.archived', task: rt.id, archiveDir });
}

/**
 * Whether the event log already has a `task.archived` of this task after its last attempt
 * event (an earlier archive of a task later put back and run again does not count). An
 * unreadable entry (a torn line) is skipped.
 */
export async function archiveAnnounced(log: EventLogPort, task: string): Promise<boolean> {
  let announced = false;
  for (const { event } of (await log.read()).events) {
    if (!('task' in event) || event.task !== task) continue;
    if (event.type === 'task.archived') announced = true;
    else if (event.type.startsWith('attempt.')) announced = false;
  }
  return announced;
}
