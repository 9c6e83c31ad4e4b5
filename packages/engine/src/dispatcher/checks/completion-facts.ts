import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ARCHIVE_DIR, COMPLETE_LOG } from '@switchyard/core';
import { probeAttempt } from '../../status/attempt-probe.js';
import type { BlockedSummary, DispatchContext, TaskRuntime } from '../types.js';
import { unrecordedReason } from './completion-record.js';

/** What keeps a run from exiting 0 although no task is blocked: see `completionFacts`. */
export interface CompletionGaps {
  /** Control-plane failures (exit 1): a live agent, a START row without its FINISH. */
  failures: string[];
  /** Archived task folders without `complete.log` (exit 3, like a blocked task). */
  incomplete: BlockedSummary[];
}

/**
 * Checks the facts an exit 0 stands for, from the files and the store themselves: no agent of
 * an in-scope task is still alive, every task folder under `agent-task/archive/<group>/` of
 * the scope has `complete.log`, and every START row of this run's tasks in the scope's work
 * logs (the open ones and those archived during this run) has its FINISH row.
 */
export async function completionFacts(
  ctx: DispatchContext,
  inScope: readonly TaskRuntime[],
  groups: ReadonlySet<string>,
  startedAt: number,
): Promise<CompletionGaps> {
  const failures: string[] = [];
  for (const rt of inScope) {
    for (const record of rt.state.attempts) {
      if (record.status === 'finished') continue;
      const probe = probeAttempt(record);
      if (probe.state === 'live')
        failures.push(`${rt.id}: attempt ${record.id} is still running (pid ${probe.pid})`);
    }
  }
  const incomplete: BlockedSummary[] = [];
  for (const group of groups) {
    const archiveDir = join(ctx.workspace, 'agent-task', ARCHIVE_DIR, group);
    for (const entry of entries(archiveDir)) {
      if (!entry.isDirectory()) continue;
      const path = join(archiveDir, entry.name);
      const task = `${group}/${entry.name}`;
      if (!existsSync(join(path, COMPLETE_LOG)))
        incomplete.push({
          task,
          reason: `archived without ${COMPLETE_LOG} (${relative(ctx.workspace, path)}): add it to mark the task complete, or move the folder back under agent-task/${group}/ to run it`,
        });
      // Done only by the dispatcher's record (a runtime of its own reports a task it knows).
      else if (!ctx.archived.has(task) && !ctx.tasks.has(task))
        incomplete.push({ task, reason: unrecordedReason(task, relative(ctx.workspace, path)) });
    }
    // Logs archived during this run; a second of slack: log times are whole seconds.
    for (const open of await ctx.workLog.openStarts(group, { archivedSince: startedAt - 1000 })) {
      if (!knowsTask(ctx, open.row.task)) continue;
      const log = isAbsolute(open.log) ? relative(ctx.workspace, open.log) : open.log;
      failures.push(`work log ${log}: START of attempt ${open.row.locator} has no FINISH row`);
    }
  }
  return { failures, incomplete };
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * A task of this run (running or archived by it). A store shared with other machines keeps
 * their rows in the same group logs: an attempt of theirs still running is theirs to judge.
 */
export function knowsTask(ctx: DispatchContext, task: string): boolean {
  return ctx.tasks.has(task) || ctx.archived.has(task);
}
