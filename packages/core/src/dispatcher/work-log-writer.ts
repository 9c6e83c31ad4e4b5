import { closeSync, fstatSync, fsync, fsyncSync, lstatSync, writeSync } from 'node:fs';
import { SwitchyardError } from '../errors.js';
import { redactSecrets, type SecretValue } from '../redact/redact.js';
import { openOwnedFile } from '../safe-fs/owned-files.js';
import {
  archiveWorkLog,
  formatWorkLogRow,
  WORK_LOG_HEADER,
  type WorkLogRow,
  workLogPath,
} from '../worklog/work-log.js';

/**
 * Writes the run's work-log rows. Each row is written with one `write()` on an O_APPEND
 * descriptor kept open per group (in order, before the caller goes on, so it survives a
 * crash of the dispatcher) and fsynced in the background, coalesced, so the disk flush
 * never blocks the scheduling loop. A failed write is a retryable control-plane failure:
 * FINISH rows that could not be written stay queued (in order, per group) and are retried
 * on every later write and at the end of the run; while any stay queued, or an fsync
 * failed, the run cannot exit 0.
 */
export class WorkLogWriter {
  readonly #pending = new Map<string, WorkLogRow[]>();
  readonly #fds = new Map<string, number>();
  readonly #syncing = new Set<string>();
  #lastError: string | undefined;
  #syncError: string | undefined;

  /** `secrets`: masked in every cell (a gate's command line, a result) before it is written. */
  constructor(
    private readonly workspace: string,
    private readonly secrets: readonly SecretValue[] = [],
  ) {}

  /**
   * Writes a START row now; throws `SY_WORK_LOG` when it cannot (the attempt must then not
   * start: an attempt without its START row would be invisible in the log).
   */
  start(group: string, row: WorkLogRow): void {
    this.#write(group, [row], true);
  }

  /** Writes a FINISH (or other) row; on failure it is queued for a retry. Never throws. */
  finish(group: string, row: WorkLogRow): void {
    try {
      this.#write(group, [row], false);
    } catch {
      // queued by #write
    }
  }

  /** Retries every queued row and flushes every log to disk; true when all is written. */
  flush(): boolean {
    for (const group of [...this.#pending.keys()]) {
      try {
        this.#write(group, [], false);
      } catch {
        // stays queued
      }
    }
    for (const group of [...this.#fds.keys()]) this.#close(group);
    return this.#pending.size === 0 && this.#syncError === undefined;
  }

  /** Archives a group's log (after writing its queued rows). Throws `SY_WORK_LOG`. */
  archive(group: string): string | undefined {
    if (this.#pending.has(group)) this.#write(group, [], false);
    this.#close(group);
    return archiveWorkLog(this.workspace, group);
  }

  /** Why the log is not fully written, or undefined when it is. */
  get failure(): string | undefined {
    return this.#pending.size > 0 ? this.#lastError : this.#syncError;
  }

  #write(group: string, rows: WorkLogRow[], dropOnFailure: boolean): void {
    const queued = this.#pending.get(group) ?? [];
    const all = [...queued, ...rows];
    if (all.length === 0) return;
    try {
      const text = all.map(formatWorkLogRow).join('');
      writeSync(this.#fd(group), redactSecrets(text, this.secrets));
      this.#pending.delete(group);
      this.#sync(group);
    } catch (error) {
      this.#drop(group);
      this.#lastError = SwitchyardError.is(error)
        ? error.message
        : `Cannot write the work log ${workLogPath(this.workspace, group)}: ${error instanceof Error ? error.message : String(error)}`;
      const keep = dropOnFailure ? queued : all;
      if (keep.length > 0) this.#pending.set(group, keep);
      throw new SwitchyardError('SY_WORK_LOG', this.#lastError, {
        cause: error,
        file: workLogPath(this.workspace, group),
      });
    }
  }

  #fd(group: string): number {
    const open = this.#fds.get(group);
    const file = workLogPath(this.workspace, group);
    if (open !== undefined) {
      if (isStillAt(open, file)) return open;
      // The log was moved, deleted or replaced (e.g. by a link) since it was opened: rows
      // written to the old descriptor would be lost, so open the path again (and refuse a link).
      this.#drop(group);
    }
    let fd: number;
    try {
      fd = openOwnedFile(file, 'create');
      writeSync(fd, WORK_LOG_HEADER(group));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      fd = openOwnedFile(file, 'append');
    }
    this.#fds.set(group, fd);
    return fd;
  }

  /** One background fsync per group at a time; rows written meanwhile ride on the next. */
  #sync(group: string): void {
    const fd = this.#fds.get(group);
    if (fd === undefined || this.#syncing.has(group)) return;
    this.#syncing.add(group);
    fsync(fd, (error) => {
      this.#syncing.delete(group);
      if (error) this.#syncError = `Cannot flush the work log of ${group}: ${error.message}`;
    });
  }

  #close(group: string): void {
    const fd = this.#fds.get(group);
    if (fd === undefined) return;
    try {
      fsyncSync(fd);
    } catch (error) {
      this.#syncError = `Cannot flush the work log of ${group}: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.#drop(group);
  }

  #drop(group: string): void {
    const fd = this.#fds.get(group);
    this.#fds.delete(group);
    // An fsync may still be queued on this descriptor: close it once that is done.
    if (fd !== undefined) {
      if (this.#syncing.has(group)) fsync(fd, () => closeSync(fd));
      else closeSync(fd);
    }
  }
}

/** Whether an open descriptor is still the file at `path` (same device and inode). */
function isStillAt(fd: number, path: string): boolean {
  const atPath = lstatSync(path, { throwIfNoEntry: false });
  if (!atPath) return false;
  const open = fstatSync(fd);
  return open.ino === atPath.ino && open.dev === atPath.dev;
}
