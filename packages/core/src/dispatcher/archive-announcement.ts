import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DispatchContext, TaskRuntime } from './context.js';

/** The run's event log under the state directory (the bus appends to it). */
export const EVENTS_FILE = 'events.jsonl';

/**
 * Emits `task.archived` exactly once per archive, across crashes. Callers announce *before*
 * the task's state is recorded `done`: a crash before the announcement leaves the task in its
 * archive phase, so the next run repeats the (idempotent) archive and announces it then; a
 * crash between the announcement and the state write is caught here, because a resumed archive
 * first looks for the announcement already in the event log. (Recording `done` first lost the
 * event for good when the dispatcher died in between.)
 */
export function announceArchived(
  ctx: DispatchContext,
  rt: TaskRuntime,
  archiveDir: string,
  resumed: boolean,
): void {
  if (resumed && archiveAnnounced(join(ctx.stateDir, EVENTS_FILE), rt.id)) return;
  ctx.bus.emit({ type: 'task.archived', task: rt.id, archiveDir });
}

/**
 * Whether the event log already has a `task.archived` of this task after its last attempt
 * event (an earlier archive of a task later put back and run again does not count). Only lines
 * naming the task are parsed; a torn line is skipped.
 */
export function archiveAnnounced(eventsFile: string, task: string): boolean {
  let text: string;
  try {
    text = readFileSync(eventsFile, 'utf8');
  } catch {
    return false;
  }
  const needle = `"task":${JSON.stringify(task)}`;
  let announced = false;
  for (const line of text.split('\n')) {
    if (!line.includes(needle)) continue;
    let event: { type?: unknown; task?: unknown };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event.task !== task || typeof event.type !== 'string') continue;
    if (event.type === 'task.archived') announced = true;
    else if (event.type.startsWith('attempt.')) announced = false;
  }
  return announced;
}
