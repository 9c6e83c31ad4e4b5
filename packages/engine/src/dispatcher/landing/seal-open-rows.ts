import { join, relative } from 'node:path';
import type { AttemptRecord } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * Closes the START rows an earlier dispatcher left open, once recovery has judged its
 * attempts. A dispatcher killed (or stopped) while a definition-of-done gate, the project
 * gates or a local command ran never wrote that stage's FINISH row; the stage runs again
 * with rows of its own, so the old START gets a FINISH `interrupted`, and the run's exit code
 * does not report a gap that recovery has dealt with. An agent attempt whose record is
 * finished gets its recorded result; one still running (re-attached) is left to its own end.
 *
 * On a shared backlog the rows are other machines' until this run takes their task: only
 * `taken`'s are sealed, once it was taken (an attempt of the machine it was taken from, whose
 * record the take-over dropped, was abandoned with its lease).
 */
export async function sealInterruptedRows(
  ctx: DispatchContext,
  taken?: TaskRuntime,
): Promise<void> {
  const tasks = taken ? [taken] : [...ctx.tasks.values()];
  const records = new Map<string, AttemptRecord>();
  for (const rt of tasks)
    for (const record of rt.state.attempts)
      records.set(relative(ctx.workspace, join(record.attemptDir, 'locator.json')), record);
  const groups = new Set(tasks.map((rt) => rt.group));
  if (!taken) for (const group of await ctx.workLog.groups()) groups.add(group);
  for (const group of groups) {
    for (const open of await ctx.workLog.openStarts(group)) {
      if (taken && open.row.task !== taken.id) continue;
      const record = records.get(open.row.locator);
      if (record && record.status !== 'finished') continue;
      ctx.workLog.finish(group, {
        ...open.row,
        kind: 'FINISH',
        time: ctx.now(),
        result: record?.interrupted ? 'interrupted' : (record?.result ?? 'interrupted'),
      });
    }
  }
}
