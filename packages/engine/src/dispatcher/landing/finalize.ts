import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { archivedTaskDir, SwitchyardError } from '@switchyard/core';
import { completionFacts, knowsTask } from '../checks/completion-facts.js';
import { unrecordedReason } from '../checks/completion-record.js';
import { writeUnsaved } from '../context.js';
import { isRunnable } from '../scheduler.js';
import type { BlockedSummary, DispatchContext, DispatchResult } from '../types.js';
import { removeIfEmpty } from './stage-archive.js';

/**
 * Settles the end of a run: retries queued work-log rows and due group-log archives (both
 * retryable control-plane failures), then decides the exit code: 130 interrupted,
 * 1 control-plane failure (also an agent still alive, a START row without FINISH), 3 in-scope
 * tasks left blocked or archived without `complete.log` (each with a one-line reason), 0 when
 * every in-scope task is archived complete, every group log archived and nothing active.
 */
export async function finalizeRun(
  ctx: DispatchContext,
  startedAt: number,
  elapsedMs: number,
): Promise<DispatchResult> {
  await writeUnsaved(ctx);
  const failures = [...ctx.controlFailures];
  if (!(await ctx.workLog.flush()))
    failures.push(`work log: ${ctx.workLog.failure ?? 'rows could not be written'}`);
  const scope = ctx.options.taskGroup;
  const inScope = [...ctx.tasks.values()].filter((rt) => !scope || rt.group === scope);
  const groups = new Set(inScope.map((rt) => rt.group));
  // A group log left behind by an earlier run whose tasks are all archived is due as well.
  const withLog = new Set(await ctx.workLog.groups());
  for (const group of withLog) if (!scope || group === scope) groups.add(group);
  for (const group of groups) {
    const tasks = [...ctx.tasks.values()].filter((rt) => rt.group === group);
    if (!tasks.every((rt) => rt.state.phase === 'done')) continue;
    if (!withLog.has(group) || (await othersOpen(ctx, group))) continue;
    try {
      const path = await ctx.workLog.archive(group);
      if (path) ctx.bus.emit({ type: 'worklog.archived', group, path });
      removeIfEmpty(join(ctx.workspace, 'agent-task', group));
    } catch (error) {
      failures.push(SwitchyardError.is(error) ? error.message : String(error));
    }
  }
  const blocked: BlockedSummary[] = [];
  for (const rt of inScope) {
    if (rt.state.phase === 'done') continue;
    blocked.push({ task: rt.id, reason: reasonOf(ctx, rt.id) });
  }
  // Exit 0 stands for facts on disk, not for what this run believes.
  const factGroups = new Set(groups);
  for (const group of archivedGroups(ctx.workspace))
    if (!scope || group === scope) factGroups.add(group);
  const gaps = await completionFacts(ctx, inScope, factGroups, startedAt);
  failures.push(...gaps.failures);
  for (const gap of gaps.incomplete)
    if (!blocked.some((b) => b.task === gap.task)) blocked.push(gap);
  const exitCode = ctx.signal.aborted ? 130 : failures.length > 0 ? 1 : blocked.length > 0 ? 3 : 0;
  return {
    exitCode,
    archived: inScope.filter((rt) => rt.state.phase === 'done').map((rt) => rt.id),
    blocked,
    controlFailures: failures,
    elapsedMs,
  };
}

function reasonOf(ctx: DispatchContext, id: string, seen = new Set<string>()): string {
  const rt = ctx.tasks.get(id);
  if (!rt) return 'unknown task';
  if (rt.state.blocked) return rt.state.blocked.reason;
  if (rt.halted) return `held by a control-plane failure: ${rt.halted}`;
  if (!rt.task.valid)
    return `invalid plan: ${rt.task.problems.find((p) => p.severity !== 'warning')?.message ?? 'see validate-plan'}`;
  seen.add(id);
  for (const dep of rt.task.dependsOn) {
    if (ctx.archived.has(dep.id) || seen.has(dep.id)) continue;
    const other = ctx.tasks.get(dep.id);
    if (!other) {
      const archived = archivedTaskDir(ctx.workspace, dep.id);
      return existsSync(archived)
        ? `waits on ${dep.id}, ${unrecordedReason(dep.id, relative(ctx.workspace, archived))}`
        : `waits on ${dep.id}, which does not exist`;
    }
    if (!isRunnable(ctx, other) && other.state.phase !== 'done' && !other.state.blocked) {
      return `waits on ${dep.id}, outside --task-group ${ctx.options.taskGroup}`;
    }
    if (other.state.phase !== 'done') return `waits on ${dep.id} (${reasonOf(ctx, dep.id, seen)})`;
  }
  for (const entry of rt.task.writeSet) {
    const holder = ctx.claimIndex.get(entry.path);
    if (holder && holder !== id && !seen.has(holder)) {
      return `waits for ${entry.path}, claimed by ${holder} (${reasonOf(ctx, holder, seen)})`;
    }
  }
  if (ctx.signal.aborted) return 'interrupted';
  return `unfinished in phase ${rt.state.phase}`;
}

/** Groups under agent-task/archive/. */
function archivedGroups(workspace: string): string[] {
  try {
    return readdirSync(join(workspace, 'agent-task', 'archive'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * Whether the group's log holds an open START row of a task this run does not know: another
 * machine's attempt on a shared store, still running. Archiving the log now would part that
 * row from its FINISH row; the machine that ends last archives it.
 */
async function othersOpen(ctx: DispatchContext, group: string): Promise<boolean> {
  return (await ctx.workLog.openStarts(group)).some((open) => !knowsTask(ctx, open.row.task));
}
