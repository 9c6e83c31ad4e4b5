import { SwitchyardError } from '../errors.js';
import { appendWorkLog, archiveWorkLog, type WorkLogRow } from '../worklog/work-log.js';

/**
 * Writes work-log rows for the run. A failed write is a retryable control-plane failure:
 * FINISH rows that could not be written stay queued (in order, per group) and are retried
 * on every later write and at the end of the run; while any stay queued the run cannot
 * exit 0.
 */
export class WorkLogWriter {
  readonly #pending = new Map<string, WorkLogRow[]>();
  #lastError: string | undefined;

  constructor(private readonly workspace: string) {}

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

  /** Retries every queued row; true when nothing is left queued. */
  flush(): boolean {
    for (const group of [...this.#pending.keys()]) {
      try {
        this.#write(group, [], false);
      } catch {
        // stays queued
      }
    }
    return this.#pending.size === 0;
  }

  /** Archives a group's log (after flushing its queued rows). Throws `SY_WORK_LOG`. */
  archive(group: string): string | undefined {
    if (this.#pending.has(group)) this.#write(group, [], false);
    return archiveWorkLog(this.workspace, group);
  }

  /** The last write error while rows are still queued, else undefined. */
  get failure(): string | undefined {
    return this.#pending.size > 0 ? this.#lastError : undefined;
  }

  #write(group: string, rows: WorkLogRow[], dropOnFailure: boolean): void {
    const queued = this.#pending.get(group) ?? [];
    const all = [...queued, ...rows];
    if (all.length === 0) return;
    try {
      appendWorkLog(this.workspace, group, all);
      this.#pending.delete(group);
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
      const keep = dropOnFailure ? queued : all;
      if (keep.length > 0) this.#pending.set(group, keep);
      if (SwitchyardError.is(error)) throw error;
      throw new SwitchyardError('SY_WORK_LOG', this.#lastError, { cause: error });
    }
  }
}
