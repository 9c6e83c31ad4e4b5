import { closeSync, fsyncSync, linkSync, lstatSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardError, type WorkLogRow } from '@switchyard/core';
import { ensureOwnedDir, openOwnedFile, unsafePathError } from '@switchyard/utils';
import { formatWorkLogRow, WORK_LOG_FILE, WORK_LOG_HEADER } from './work-log-format.js';

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

function workLogError(message: string, file: string, cause: unknown): SwitchyardError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SwitchyardError('SY_WORK_LOG', `${message}: ${reason}`, {
    file,
    cause,
    hint: 'Check that the directory is writable and the disk is not full; the dispatcher retries and will not exit 0 until the log is written.',
  });
}
