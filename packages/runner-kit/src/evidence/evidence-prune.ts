import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type AttemptRecord, SwitchyardError, type TaskState } from '@switchyard/core';
import { ATTEMPT_FILES } from '../attempt/layout.js';
import { writeNoteFile } from './evidence-cap.js';

/** Left in a pruned attempt folder, next to its locator (which the logs cite). */
export const EVIDENCE_PRUNED_FILE = 'evidence-pruned.json';

/** Options of {@link pruneAttemptEvidence}. */
export interface PruneEvidenceOptions {
  /** The dispatcher's state folder (`agent-task/.switchyard`). */
  stateDir: string;
  /** Every task state of the workspace (the store's list): the attempts a task still needs are spared. */
  states: readonly TaskState[];
  /** Failed attempts that ended longer ago than this go. */
  olderThanMs?: number;
  /** Then, oldest first, failed attempts go until all attempt evidence is within this. */
  maxTotalBytes?: number;
  now?: Date;
  /** Only report what would go. */
  dryRun?: boolean;
}

/** One failed attempt whose evidence goes (or would go). */
export interface PrunedAttempt {
  attempt: string;
  task: string;
  endedAt: string;
  bytes: number;
  why: 'age' | 'size';
}

export interface PruneEvidenceReport {
  pruned: PrunedAttempt[];
  /** Attempts kept because a human or a live run needs them (active tasks, the latest
   * attempt of a blocked task). */
  protected: number;
  /** Bytes of every attempt folder before pruning. */
  totalBytes: number;
  bytesFreed: number;
  dryRun: boolean;
}

/** Bytes of the files below `path` (symlinks counted as links, never followed). */
function bytesBelow(path: string, skip?: string): number {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of readdirSync(path)) if (name !== skip) total += bytesBelow(join(path, name));
  return total;
}

interface Candidate {
  record: AttemptRecord;
  task: string;
  endedAt: number;
  bytes: number;
}

/** Failed, finished attempts a prune may take; counts the ones it must keep. */
function candidatesOf(
  states: readonly TaskState[],
  attemptsDir: string,
): { candidates: Candidate[]; kept: number } {
  const candidates: Candidate[] = [];
  let kept = 0;
  for (const state of states) {
    const active = state.phase !== 'done' && state.blocked === undefined;
    const latest = state.attempts.at(-1);
    for (const record of state.attempts) {
      const failed = record.status === 'finished' && record.result !== 'success';
      if (!failed) continue;
      if (active || (state.blocked !== undefined && record === latest)) {
        kept++;
        continue;
      }
      if (!prunable(record.attemptDir, attemptsDir)) continue;
      const ended = Date.parse(record.endedAt ?? record.startedAt);
      const bytes = bytesBelow(record.attemptDir, ATTEMPT_FILES.locator);
      if (bytes > 0) candidates.push({ record, task: state.task, endedAt: ended, bytes });
    }
  }
  return { candidates: candidates.sort((a, b) => a.endedAt - b.endedAt), kept };
}

/** A real folder right below the attempts folder (a hand-edited state cannot point the
 * prune elsewhere), not pruned already. */
function prunable(dir: string, attemptsDir: string): boolean {
  if (dirname(resolve(dir)) !== resolve(attemptsDir)) return false;
  try {
    if (!lstatSync(dir).isDirectory()) return false;
    return !readdirSync(dir).includes(EVIDENCE_PRUNED_FILE);
  } catch {
    return false;
  }
}

/** Removes an attempt's evidence but its locator, and notes when and how much. */
function prune(dir: string, bytes: number, now: Date): void {
  for (const name of readdirSync(dir)) {
    if (name === ATTEMPT_FILES.locator) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
  writeNoteFile(
    join(dir, EVIDENCE_PRUNED_FILE),
    `${JSON.stringify({ at: now.toISOString(), bytes, by: 'switchyard clean' })}\n`,
  );
}

/**
 * Prunes old failed-attempt evidence (`switchyard clean --evidence-older-than/--evidence-max-size`):
 * failed attempts of archived or blocked tasks, by age, then oldest first until the attempt
 * folders fit `maxTotalBytes`. Never an attempt of an active task, never the latest attempt
 * of a blocked task (the evidence a human needs), never a successful attempt (the archive
 * trims those). A pruned attempt keeps its `locator.json` (the work log and complete.log cite
 * it) and gets an `evidence-pruned.json`.
 */
export function pruneAttemptEvidence(opts: PruneEvidenceOptions): PruneEvidenceReport {
  if (opts.olderThanMs === undefined && opts.maxTotalBytes === undefined)
    throw new SwitchyardError('SY_USAGE', 'Nothing to prune by: give an age or a total size.', {
      hint: 'use --evidence-older-than (e.g. 14d) and/or --evidence-max-size (e.g. 500MB)',
    });
  const now = opts.now ?? new Date();
  const dryRun = opts.dryRun === true;
  const { candidates, kept } = candidatesOf(opts.states, join(opts.stateDir, 'attempts'));
  const totalBytes = bytesBelow(join(opts.stateDir, 'attempts'));
  const pruned: PrunedAttempt[] = [];
  let left = totalBytes;
  for (const c of candidates) {
    const old = opts.olderThanMs !== undefined && now.getTime() - c.endedAt > opts.olderThanMs;
    const over = opts.maxTotalBytes !== undefined && left > opts.maxTotalBytes;
    if (!old && !over) continue;
    pruned.push({
      attempt: c.record.id,
      task: c.task,
      endedAt: new Date(c.endedAt).toISOString(),
      bytes: c.bytes,
      why: old ? 'age' : 'size',
    });
    left -= c.bytes;
    if (!dryRun) prune(c.record.attemptDir, c.bytes, now);
  }
  return {
    pruned,
    protected: kept,
    totalBytes,
    bytesFreed: pruned.reduce((n, p) => n + p.bytes, 0),
    dryRun,
  };
}
