import { existsSync, lstatSync, renameSync, rmdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SwitchyardError } from '../errors.js';
import { ensureOwnedDir, unsafePathError, writeOwnedFile } from '../safe-fs/owned-files.js';
import { isGroupLogArchivable } from '../worklog/work-log.js';
import { archivedTaskDir, COMPLETE_LOG, reviewFileName } from '../workspace/paths.js';
import { blockTask } from './apply-failure.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';

/**
 * Completes an approved task; every step is idempotent so a restart after a crash at any
 * point finishes it: write `complete.log`, move the folder to
 * `agent-task/archive/<group>/<task>/`, verify, release the claim, delete the successful
 * attempts' evidence (failed attempts are kept), mark the task done, and archive the group's
 * work log when every observed task of the group is archived and idle.
 */
export async function runArchiveStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const source = rt.task.dir;
  const target = archivedTaskDir(ctx.workspace, rt.id);
  if (existsSync(source)) {
    const completeLog = join(source, COMPLETE_LOG);
    // An agent may have swapped the task folder for a symlink: never archive through one.
    if (lstatSync(source).isSymbolicLink()) throw unsafePathError(source, 'is a symlink');
    if (!existsSync(completeLog)) writeOwnedFile(completeLog, completeLogText(ctx, rt), 'create');
    if (existsSync(target)) {
      blockTask(ctx, rt, {
        stage: 'archive',
        reason: `cannot archive: ${target} already exists`,
        evidence: [`active folder: ${source}`],
      });
      return persist(ctx, rt);
    }
    ensureOwnedDir(ctx.workspace, dirname(target));
    renameSync(source, target);
  }
  if (!existsSync(join(target, COMPLETE_LOG))) {
    blockTask(ctx, rt, {
      stage: 'archive',
      reason: `archive verification failed: ${join(target, COMPLETE_LOG)} is missing`,
      evidence: [],
    });
    return persist(ctx, rt);
  }
  await ctx.claims.release(rt.id);
  for (const [path, holder] of ctx.claimIndex) if (holder === rt.id) ctx.claimIndex.delete(path);
  // Off the event loop: other tasks' agents keep being watched meanwhile.
  await Promise.all(
    rt.state.attempts
      .filter((a) => a.status === 'finished' && a.result === 'success')
      .map((a) => rm(a.attemptDir, { recursive: true, force: true })),
  );
  rt.state.phase = 'done';
  delete rt.state.notBefore;
  await persist(ctx, rt);
  ctx.archived.add(rt.id);
  ctx.bus.emit({ type: 'task.archived', task: rt.id, archiveDir: target });
  archiveGroupLogIfDone(ctx, rt.group);
}

/**
 * Archives the group's `WORK_LOG.md` once every task of the group seen in this run is done
 * and idle. A failure is recorded as a control-plane failure (retried at the end of the run).
 */
export function archiveGroupLogIfDone(ctx: DispatchContext, group: string): void {
  const observed = [...ctx.tasks.values()].filter((t) => t.group === group);
  const done = isGroupLogArchivable(
    observed.map((t) => t.id),
    (id) => ctx.tasks.get(id)?.state.phase === 'done',
    (id) => ctx.tasks.get(id)?.busy !== true || ctx.tasks.get(id)?.state.phase === 'done',
  );
  if (!done) return;
  try {
    const path = ctx.workLog.archive(group);
    if (path) ctx.bus.emit({ type: 'worklog.archived', group, path });
    removeIfEmpty(join(ctx.workspace, 'agent-task', group));
  } catch (error) {
    // Retried when the run ends; still failing then, it keeps the run from exiting 0.
    const message = SwitchyardError.is(error) ? error.message : String(error);
    ctx.bus.emit({ type: 'control.failure', code: 'SY_WORK_LOG', message });
  }
}

function completeLogText(ctx: DispatchContext, rt: TaskRuntime): string {
  const s = rt.state;
  const failed = s.attempts.filter((a) => a.status === 'finished' && a.result !== 'success');
  const targets = [...new Set(s.attempts.map((a) => a.target))];
  return [
    `task: ${rt.id}`,
    `completed: ${ctx.now().toISOString()}`,
    `plan loops: ${s.planLoop}`,
    `approved review: ${reviewFileName(s.planLoop)}`,
    `attempts: ${s.attempts.length} (${failed.length} failed, evidence kept under agent-task/.switchyard/attempts/)`,
    `targets: ${targets.join(', ')}`,
    `catalog revision: ${ctx.catalogFacts.revision} (${ctx.catalogFacts.source})`,
    '',
  ].join('\n');
}

/** Removes a group folder left empty by the archive (one the user keeps files in stays). */
export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}
