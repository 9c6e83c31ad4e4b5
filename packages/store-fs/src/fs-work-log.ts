import { lstatSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENT_TASK_DIR,
  ARCHIVE_DIR,
  openStartsAcrossLogs,
  SwitchyardError,
  type WorkLogPort,
  type WorkLogRow,
} from '@switchyard/core';
import type { WorkLogRoleName } from '@switchyard/core/lifecycle';
import type { FsLeases } from './fs-leases.js';
import { workLogFiles } from './fs-work-log-files.js';
import { archiveWorkLog, workLogPath } from './worklog/work-log.js';
import { formatWorkLogRow } from './worklog/work-log-format.js';

/**
 * Work-log rows in each group's `agent-task/<group>/WORK_LOG.md`, the Markdown table people
 * read (the file is the record: rows are parsed back from it). Rows go out with one `write()`
 * on an O_APPEND descriptor kept open per group, before `append` resolves (so they survive a
 * dispatcher crash), and are fsynced in the background, coalesced (one fsync per group per
 * 100 ms at most); `flush` fsyncs them all.
 * A moved or replaced log is opened again (a symlink at its name is refused). `archive`
 * moves the log to `agent-task/archive/<group>/work_log_<N>.log`; such a log was last
 * written at its modification time (`link()` keeps it).
 */
export interface FsWorkLog extends WorkLogPort {
  close(): void;
}

export function fsWorkLog(workspace: string, leases: FsLeases): FsWorkLog {
  const files = workLogFiles(workspace);
  const { open, sync, drop, closeGroup } = files;

  return {
    async append(group, rows, options) {
      leases.check(options?.fence);
      if (rows.length === 0) return;
      const file = workLogPath(workspace, group);
      try {
        writeSync(open(group), rows.map(formatWorkLogRow).join(''));
      } catch (error) {
        drop(group);
        if (SwitchyardError.is(error)) throw error;
        throw new SwitchyardError(
          'SY_WORK_LOG',
          `Cannot write the work log ${file}: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
            file,
            hint: 'Check that the directory is writable and the disk is not full; the dispatcher retries and will not exit 0 until the log is written.',
          },
        );
      }
      sync(group);
    },
    async flush() {
      for (const group of files.groups()) closeGroup(group);
      const error = files.takeError();
      if (error)
        throw new SwitchyardError('SY_WORK_LOG', error, {
          hint: 'Check the disk; the rows are written but may not survive a power loss.',
        });
    },
    read: async (group) => readRows(workLogPath(workspace, group)),
    async groups() {
      return list(join(workspace, AGENT_TASK_DIR))
        .filter((group) => !group.startsWith('.') && group !== ARCHIVE_DIR)
        .filter((group) => entryExists(workLogPath(workspace, group)))
        .sort();
    },
    async openStarts(group, options = {}) {
      const logs: string[] = [];
      const since = options.archivedSince;
      if (since !== undefined) {
        const archiveDir = join(workspace, AGENT_TASK_DIR, ARCHIVE_DIR, group);
        const archived = list(archiveDir)
          .map((name) => ({ name, n: /^work_log_(\d+)\.log$/.exec(name)?.[1] }))
          .filter(({ name, n }) => n && modifiedSince(join(archiveDir, name), since))
          .sort((a, b) => Number(a.n) - Number(b.n)); // oldest first, as they were written
        for (const { name } of archived) logs.push(join(archiveDir, name));
      }
      logs.push(workLogPath(workspace, group));
      return openStartsAcrossLogs(logs.map((log) => ({ log, rows: readRows(log) })));
    },
    async archive(group) {
      closeGroup(group);
      return archiveWorkLog(workspace, group);
    },
    close() {
      for (const group of files.groups()) closeGroup(group);
    },
  };
}

/** The rows of a log file, in order; none when it cannot be read. */
function readRows(file: string): WorkLogRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => parseRow(line) ?? []);
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Whether a directory entry is there, without following it: a work log replaced by a
 * dangling link is still a log (to archive, and refuse), not "no log".
 */
function entryExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function modifiedSince(file: string, since: number): boolean {
  try {
    return statSync(file).mtimeMs >= since;
  } catch {
    return false;
  }
}

/** A row of the table back from its Markdown line (`formatWorkLogRow`), or undefined. */
export function parseRow(line: string): WorkLogRow | undefined {
  if (!line.startsWith('| ') || !line.endsWith(' |')) return undefined;
  const cells = line
    .slice(2, -2)
    .split(/ (?<!\\)\| /)
    .map((cell) => cell.replace(/\\\|/g, '|'));
  if (cells.length !== 9) return undefined;
  const [time, kind, artifactCell, loop, role, attempt, agentModel, result, locator] = cells as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (kind !== 'START' && kind !== 'FINISH') return undefined;
  const at = Date.parse(time);
  const slash = artifactCell.lastIndexOf('/');
  const loopMatch = /^(\d+)(?: of (\d+))?$/.exec(loop);
  if (Number.isNaN(at) || slash <= 0 || !loopMatch) return undefined;
  return {
    kind,
    time: new Date(at),
    task: artifactCell.slice(0, slash),
    artifact: artifactCell.slice(slash + 1),
    planLoop: Number(loopMatch[1]),
    ...(loopMatch[2] ? { maxPlanLoops: Number(loopMatch[2]) } : {}),
    role: role as WorkLogRoleName,
    attempt,
    agentModel,
    result,
    locator,
  };
}
