import { createHash } from 'node:crypto';
import { type Dirent, existsSync, lstatSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { open, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  archivedTaskDir,
  COMPLETE_LOG,
  type ProjectGateResult,
  reviewFileName,
  SwitchyardError,
} from '@switchyard/core';
import { ATTEMPT_FILES, maskSecretsBelow, redactSecrets, usageLine } from '@switchyard/runner-kit';
import { ensureOwnedDir, unsafePathError, writeOwnedFile } from '@switchyard/utils';
import { gateResultLine } from '../../gates/gate-result-line.js';
import { advance } from '../advance.js';
import { acceptedNotesLines } from '../agent/accepted-notes.js';
import { openChecklistNotes } from '../checks/completion-promise.js';
import { SOURCE_CHANGES_DIR } from '../checks/source-watch.js';
import { persist } from '../context.js';
import { changeStoreOf } from '../shared/change-store-of.js';
import { claimWriteOf } from '../shared/claim-fence.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { blockTask } from './apply-failure.js';
import { announceArchived } from './archive-announcement.js';
import { isGroupLogArchivable } from './group-log.js';

/**
 * Completes an approved task; every step is idempotent so a restart after a crash at any
 * point finishes it: write `complete.log`, move the folder to
 * `agent-task/archive/<group>/<task>/`, verify, release the claim, trim the successful
 * attempts' evidence to what the logs cite (failed attempts are kept whole), mark the task
 * done, and archive the group's work log when every observed task of the group is archived
 * and idle.
 */
export async function runArchiveStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const source = rt.task.dir;
  const target = archivedTaskDir(ctx.workspace, rt.id);
  // The folder is already moved: an earlier run died mid-archive (it may have announced it).
  const resumed = !existsSync(source);
  if (!resumed) {
    const completeLog = join(source, COMPLETE_LOG);
    // An agent may have swapped the task folder for a symlink: never archive through one.
    if (lstatSync(source).isSymbolicLink()) throw unsafePathError(source, 'is a symlink');
    // Only the complete.log this stage recorded (a restart after writing it) is kept; one an
    // agent wrote into the folder is not the dispatcher's and is replaced. The completion
    // promise held before the task got here (the promise stage, before the apply): nothing
    // that already landed is held back at the archive.
    if (!isOurs(rt, completeLog)) {
      // It quotes the review's accepted notes (agent text): no credential goes into the archive.
      const text = redactSecrets(completeLogText(ctx, rt), ctx.secrets);
      // Recorded before the file exists: a restart finishes this archive, and only this one.
      rt.state.archive = { completeLogSha256: hashOf(text) };
      await persist(ctx, rt);
      writeOwnedFile(completeLog, text, 'replace');
    }
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
    // What the agents wrote there (reviews, plans, notes) is kept: masked like their captures.
    maskSecretsBelow(target, ctx.secrets);
  }
  // Verified against the record: a folder someone else moved there (with a complete.log of
  // their own) is never taken for this archive.
  if (!isOurs(rt, join(target, COMPLETE_LOG))) {
    blockTask(ctx, rt, {
      stage: 'archive',
      reason: `archive verification failed: ${join(target, COMPLETE_LOG)} is ${existsSync(join(target, COMPLETE_LOG)) ? 'not the one the dispatcher wrote' : 'missing'}`,
      evidence: resumed
        ? [`the task folder ${source} was gone before the dispatcher archived it`]
        : [],
    });
    return persist(ctx, rt);
  }
  // Worktree isolation: the task's commit is on the source branch (or its patch archived).
  await ctx.options.isolation?.removeWorktree(rt.id);
  await ctx.claims.release(rt.id, await claimWriteOf(ctx, rt.id));
  for (const [path, holder] of ctx.claimIndex) if (holder === rt.id) ctx.claimIndex.delete(path);
  await changeStoreOf(ctx).remove(rt.id);
  // Off the event loop: other tasks' agents keep being watched meanwhile.
  await Promise.all(
    rt.state.attempts
      .filter((a) => a.status === 'finished' && a.result === 'success')
      .map((a) => trimAttemptEvidence(a.attemptDir)),
  );
  advance(rt, 'passed');
  // Announced before `done` is recorded, so a crash in between cannot lose it (see there).
  await announceArchived(ctx, rt, target, resumed);
  await persist(ctx, rt);
  ctx.archived.add(rt.id);
  await archiveGroupLogIfDone(ctx, rt.group);
}

/** True when `file` is the `complete.log` this stage recorded for the task. */
function isOurs(rt: TaskRuntime, file: string): boolean {
  const recorded = rt.state.archive?.completeLogSha256;
  if (!recorded) return false;
  try {
    return hashOf(readFileSync(file, 'utf8')) === recorded;
  } catch {
    return false;
  }
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Archives the group's `WORK_LOG.md` once every task of the group seen in this run is done
 * and idle. A failure is recorded as a control-plane failure (retried at the end of the run).
 */
export async function archiveGroupLogIfDone(ctx: DispatchContext, group: string): Promise<void> {
  const observed = [...ctx.tasks.values()].filter((t) => t.group === group);
  const done = isGroupLogArchivable(
    observed.map((t) => t.id),
    (id) => ctx.tasks.get(id)?.state.phase === 'done',
    (id) => ctx.tasks.get(id)?.busy !== true || ctx.tasks.get(id)?.state.phase === 'done',
  );
  if (!done) return;
  try {
    const path = await ctx.workLog.archive(group);
    if (path) ctx.bus.emit({ type: 'worklog.archived', group, path });
    removeIfEmpty(join(ctx.workspace, 'agent-task', group));
  } catch (error) {
    // Retried when the run ends; still failing then, it keeps the run from exiting 0.
    const message = SwitchyardError.is(error) ? error.message : String(error);
    ctx.bus.emit({ type: 'control.failure', code: 'SY_WORK_LOG', message });
  }
}

/** The normalized transcript of a successful attempt is kept up to this size (its tail). */
export const KEPT_TRANSCRIPT_BYTES = 64 * 1024;
/** What stays of a successful attempt once its task is archived: what the logs cite. */
const KEPT_FILES = new Set([
  ATTEMPT_FILES.locator,
  ATTEMPT_FILES.normalized,
  'prompt.md',
  // What the attempt wrote into the source, put back: the user may still want it.
  SOURCE_CHANGES_DIR,
]);

/**
 * Drops a successful attempt's bulky evidence (raw output, stream log, heartbeats) and keeps
 * what the work log and `complete.log` cite: its `locator.json`, its prompt and the tail of
 * its normalized transcript, so no archived record points at a deleted file.
 */
async function trimAttemptEvidence(dir: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  await Promise.all(
    entries.filter((entry) => !KEPT_FILES.has(entry.name)).map((entry) => removeEntry(dir, entry)),
  );
  const transcript = join(dir, ATTEMPT_FILES.normalized);
  const size = await stat(transcript).then(
    (s) => s.size,
    () => 0,
  );
  if (size <= KEPT_TRANSCRIPT_BYTES) return;
  const handle = await open(transcript, 'r');
  let tail: Buffer;
  try {
    tail = Buffer.alloc(KEPT_TRANSCRIPT_BYTES - 64);
    await handle.read(tail, 0, tail.length, size - tail.length);
  } finally {
    await handle.close();
  }
  await writeFile(
    transcript,
    Buffer.concat([Buffer.from(`[… ${size - tail.length} earlier bytes dropped]\n`), tail]),
  );
}

/**
 * Removes one entry of an attempt folder, never following a link. A file (nearly every
 * entry) is one unlink: `rm`'s recursive walk would lstat it first and go through its retry
 * machinery, a cost per file of every archived attempt. A folder, or an entry that changed
 * kind since it was listed, goes through `rm`; one already gone is fine.
 */
async function removeEntry(dir: string, entry: Dirent): Promise<void> {
  const path = join(dir, entry.name);
  if (!entry.isDirectory()) {
    try {
      await unlink(path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
  }
  await rm(path, { recursive: true, force: true });
}

function completeLogText(ctx: DispatchContext, rt: TaskRuntime): string {
  const s = rt.state;
  const failed = s.attempts.filter((a) => a.status === 'finished' && a.result !== 'success');
  const targets = [...new Set(s.attempts.map((a) => a.target))];
  return [
    `task: ${rt.id}`,
    `completed: ${ctx.now().toISOString()}`,
    `plan loops: ${s.planLoop}`,
    `approved review: ${rt.task.runner === 'local' ? 'none (local runner: a command, no agent)' : reviewFileName(s.planLoop)}`,
    ...acceptedNotesLines(rt.task.dir, s.planLoop),
    ...fixupLines(rt),
    ...openItemLines(openChecklistNotes(ctx, rt)),
    `attempts: ${s.attempts.length} (${failed.length} failed; each keeps its locator.json, a failed one all its evidence)`,
    ...s.attempts.map(
      (a) =>
        `  ${a.id} ${a.role} loop ${a.planLoop} on ${a.target}: ${a.result ?? a.status} — ${relative(ctx.workspace, join(a.attemptDir, ATTEMPT_FILES.locator))}`,
    ),
    `targets: ${targets.join(', ')}`,
    ...projectGateLines(s.gates),
    ...usageLine(s.attempts.map((a) => a.usage)),
    `catalog revisions used: ${revisionsUsed(rt).join(', ') || 'none recorded'}`,
    `archived under catalog revision: ${ctx.catalogFacts.revision} (${ctx.catalogFacts.source})`,
    ...isolationLines(rt),
    '',
  ].join('\n');
}

/** Every catalog revision the task's attempts and standing decisions were decided on. */
function revisionsUsed(rt: TaskRuntime): string[] {
  const revisions = [
    ...rt.state.attempts.map((a) => a.catalogRevision),
    ...Object.values(rt.state.decisions).map((d) => d?.catalogRevision),
  ];
  return [...new Set(revisions.filter((r): r is string => r !== undefined))];
}

/** Removes a group folder left empty by the archive (one the user keeps files in stays). */
export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}

/** Worktree isolation facts for `complete.log`: base, source commit (or patch), rollbacks. */
function isolationLines(rt: TaskRuntime): string[] {
  const facts = rt.state.isolation;
  // A choice, not an omission: a local command is the user's own, run where they would run it.
  if (rt.task.runner === 'local')
    return [
      'isolation: none (runner: local, run in the source workspace)',
      `source commit: none (a local command's changes stay uncommitted in the source workspace, as a command run by hand: ${rt.task.writeSet.map((w) => w.path).join(', ') || 'no files'})`,
    ];
  if (!facts) return ['isolation: none (the shared workspace)'];
  if (facts.foundOnRemote)
    return [
      'isolation: none on this machine (taken over from a machine that pushed the commit and died before recording it; no attempt ran here)',
      `source commit: ${facts.sourceCommit} on ${facts.sourceBranch} (found on the remote branch)`,
    ];
  const rolledBack = facts.rolledBack;
  return [
    `isolation: worktree ${facts.branch} (removed after archive)`,
    `base commit: ${facts.baseCommit} on ${facts.sourceBranch}`,
    facts.patchFile
      ? `source commit: none (apply: patch; the diff is ${facts.patchFile} in this folder)`
      : `source commit: ${facts.sourceCommit ?? 'none recorded'}`,
    `rollbacks: ${rolledBack.length === 0 ? 'none' : `${rolledBack.length} (${rolledBack.join(', ')})`}`,
  ];
}

/** `complete.log` lines with each project gate's last result (none when the config has none). */
function projectGateLines(gates: readonly ProjectGateResult[] | undefined): string[] {
  if (!gates || gates.length === 0) return [];
  return ['project gates:', ...gates.map((g) => `  ${gateResultLine(g)} — ${g.output}`)];
}

/** `complete.log` lines of checklist items left open without a required self-check (no block). */
function openItemLines(items: readonly string[]): string[] {
  if (items.length === 0) return [];
  return [
    `checklist items left open: ${items.length} (no self-check was required of the worker's target; the reviewer saw them)`,
    ...items.map((i) => `  ${i}`),
  ];
}

/** The `complete.log` line of a fixup that applied the reviews' MINOR findings. */
function fixupLines(rt: TaskRuntime): string[] {
  const fixup = rt.state.fixup;
  if (fixup?.planLoop !== rt.state.planLoop) return [];
  const attempt = rt.state.attempts.findLast((a) => a.role === 'fixup' && a.result === 'success');
  return [
    `minor findings applied by the fixup stage${attempt ? ` (attempt ${attempt.id} on ${attempt.target})` : ''}, then checked again`,
  ];
}
