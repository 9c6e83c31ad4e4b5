import { newTaskState, type TaskState } from '@switchyard/core';
import type { WorkspaceModel } from '@switchyard/tasks';
import type { DispatchContext } from '../types.js';

/**
 * Completion is read from the dispatcher's records, never from folders an agent can write:
 * a task is done when its state says `done` (the archive stage writes it once `complete.log`
 * it wrote is in the archive, see stage-archive.ts). An archive entry without that record is
 * reported and never counted: an agent can copy a folder into `agent-task/archive/` with a
 * `complete.log` of its own. One exception: a workspace with no records at all (switchyard
 * never ran there, or its state folder was deleted) trusts the archive it finds, once, and
 * records those entries as done (`doneBy: "import"`).
 */
export async function readCompletion(
  ctx: DispatchContext,
  model: WorkspaceModel,
  states: readonly TaskState[],
): Promise<void> {
  const active = new Set(model.tasks.map((t) => t.id));
  for (const state of states)
    if (state.phase === 'done' && !active.has(state.task)) ctx.archived.add(state.task);
  const known = new Set(states.map((s) => s.task));
  const entries = [...model.archived.values()].filter(
    (a) => a.complete && !ctx.archived.has(a.id) && !active.has(a.id),
  );
  if (entries.length === 0) return;
  if (states.length === 0) {
    for (const entry of entries) {
      const state = newTaskState(entry.id, ctx.now());
      state.phase = 'done';
      state.doneBy = 'import';
      // No record of it exists (states is empty): a first write, compare-and-set on none.
      await ctx.store.tasks.put(state, { expected: 0 });
      ctx.archived.add(entry.id);
    }
    ctx.bus.emit({
      type: 'archive.checked',
      imported: entries.map((e) => e.id),
      unrecorded: [],
      detail: `${entries.length} archived task(s) found in a workspace without dispatcher records: recorded as done once (${entries
        .map((e) => e.id)
        .slice(0, 10)
        .join(', ')}${entries.length > 10 ? ', …' : ''})`,
    });
    return;
  }
  // Entries of tasks this dispatcher holds a record of are settled with that record (recover.ts).
  const unrecorded = entries.filter((e) => !known.has(e.id)).map((e) => e.id);
  if (unrecorded.length === 0) return;
  ctx.bus.emit({
    type: 'archive.checked',
    imported: [],
    unrecorded,
    detail: `archived without the dispatcher's record, so not counted as done: ${unrecorded.join(', ')}. If you archived one yourself, record it with \`switchyard resolve <task> --done\`; else move it back under agent-task/<group>/ to run it`,
  });
}

/** Why an archive entry does not count (for the run's summary and a dependent's wait). */
export function unrecordedReason(task: string, dir: string): string {
  return `archived without the dispatcher's record (${dir}), so not counted as done: if you archived it yourself, record it with \`switchyard resolve ${task} --done\`; else move the folder back under agent-task/${task.split('/')[0]}/ to run it`;
}
