import { closeSync, fsyncSync, linkSync, lstatSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardError } from '../errors.js';
import type { WorkLogRoleName } from '../lifecycle/lifecycle-table.js';
import { ensureOwnedDir, openOwnedFile, unsafePathError } from '../safe-fs/owned-files.js';

/** File name of a group's dispatcher-owned work log. */
export const WORK_LOG_FILE = 'WORK_LOG.md';

/** One START or FINISH row of a work log. */
export interface WorkLogRow {
  /** `HUMAN`: an action a human took (retry, skip, resolve, stop), from the monitor page. */
  kind: 'START' | 'FINISH' | 'HUMAN';
  /** UTC instant of the row. */
  time: Date;
  /** Task id `<group>/<task>`. */
  task: string;
  /** The task artifact the row is about, in the task folder: the plan an attempt works on
   * (`PLAN-2.md`) or the review it writes (`CODE_REVIEW-1.md`). */
  artifact: string;
  planLoop: number;
  /** The task's cap on plan loops: the cell reads `N of M` when known. */
  maxPlanLoops?: number;
  role: WorkLogRoleName | 'human';
  /** Attempt ordinal of this stage in this plan loop (1, 2, …); the attempt id is in the
   * locator path. */
  attempt: string;
  /** `agent/model` display of the selected target, or a short label for a gate. */
  agentModel: string;
  /** `running` for START; `success` or the failure class for FINISH. */
  result: string;
  /** Path of the attempt's locator.json (workspace-relative where possible). */
  locator: string;
}

/** The first lines of a new work log. */
export const WORK_LOG_HEADER = (group: string): string =>
  `# Work log: ${group}\n\n` +
  'Written by the switchyard dispatcher, one row per attempt start and finish. Do not edit.\n\n' +
  '| time (UTC) | event | task artifact | plan loop | role | attempt | agent/model | result | locator |\n' +
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n';

/** Formats one row as a Markdown table line; `|` and line breaks in cells are escaped. */
export function formatWorkLogRow(row: WorkLogRow): string {
  const cells = [
    row.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    row.kind,
    `${row.task}/${row.artifact}`,
    row.maxPlanLoops ? `${row.planLoop} of ${row.maxPlanLoops}` : String(row.planLoop),
    row.role,
    row.attempt,
    row.agentModel,
    row.result,
    row.locator,
  ].map((cell) => cell.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' '));
  return `| ${cells.join(' | ')} |\n`;
}

/** Path of a group's work log: `<workspace>/agent-task/<group>/WORK_LOG.md`. */
export function workLogPath(workspace: string, group: string): string {
  return join(workspace, 'agent-task', group, WORK_LOG_FILE);
}

/**
 * Appends rows durably (write + fsync before returning); creates the log with its header
 * when it does not exist. Any failure is `SY_WORK_LOG`: a retryable control-plane failure
 * the dispatcher records and that keeps the run from exiting 0.
 */
export function appendWorkLog(workspace: string, group: string, rows: WorkLogRow[]): void {
  const file = workLogPath(workspace, group);
  let fd: number | undefined;
  try {
    let created = false;
    try {
      fd = openOwnedFile(file, 'create');
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      fd = openOwnedFile(file, 'append');
    }
    const text = (created ? WORK_LOG_HEADER(group) : '') + rows.map(formatWorkLogRow).join('');
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    if (SwitchyardError.is(error)) throw error;
    throw workLogError(`Cannot write the work log ${file}`, file, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Moves a group's `WORK_LOG.md` to `agent-task/archive/<group>/work_log_<N>.log`, N being
 * the next free number (taken with `link()`, which never overwrites). Returns the archive
 * path, or undefined when the group has no work log.
 */
export function archiveWorkLog(workspace: string, group: string): string | undefined {
  const source = workLogPath(workspace, group);
  const archiveDir = join(workspace, 'agent-task', 'archive', group);
  try {
    if (lstatSync(source, { throwIfNoEntry: false })?.isSymbolicLink())
      throw unsafePathError(source, 'is a symlink');
    ensureOwnedDir(workspace, archiveDir);
    for (let n = 1; ; n++) {
      const target = join(archiveDir, `work_log_${n}.log`);
      try {
        linkSync(source, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (code === 'ENOENT') return undefined;
        throw error;
      }
      unlinkSync(source);
      return target;
    }
  } catch (error) {
    if (SwitchyardError.is(error)) throw error;
    throw workLogError(`Cannot archive the work log ${source}`, source, error);
  }
}

/**
 * True when a group's log may be archived: every task observed in the group during the run
 * is archived and none has a live attempt.
 */
export function isGroupLogArchivable(
  observedTasks: Iterable<string>,
  isArchived: (task: string) => boolean,
  isIdle: (task: string) => boolean,
): boolean {
  let any = false;
  for (const task of observedTasks) {
    any = true;
    if (!isArchived(task) || !isIdle(task)) return false;
  }
  return any;
}

function workLogError(message: string, file: string, cause: unknown): SwitchyardError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SwitchyardError('SY_WORK_LOG', `${message}: ${reason}`, {
    file,
    cause,
    hint: 'Check that the directory is writable and the disk is not full; the dispatcher retries and will not exit 0 until the log is written.',
  });
}
