import type { WorkLogRow } from '../worklog/work-log-row.js';
import type { FencedWrite } from './fence.js';

/** A START row without its FINISH row (see {@link WorkLogPort.openStarts}). */
export interface OpenWorkLogStart {
  /** The row as stored (its FINISH repeats every cell but time, kind and result). */
  row: WorkLogRow;
  /** Where the log holding it can be read, for people: the open log, or an archived one as
   * `archive` named it. */
  log: string;
}

/** Options of {@link WorkLogPort.openStarts}. */
export interface OpenStartsOptions {
  /** Epoch ms: also the group's archived logs last written at or after it. */
  archivedSince?: number;
}

/**
 * Work-log rows (START/FINISH per attempt and stage), per task group. `WORK_LOG.md` and the
 * archived `work_log_N.log` are renderings of these rows for people.
 *
 * `append` stores the rows of one group in call order; once its promise resolved they survive
 * a crash of the writer (a failure is `SY_WORK_LOG`: a retryable control-plane failure).
 * `flush` resolves once every row appended before it also survives a power loss. `archive`
 * closes the group's current log (when every task of the group is done) and returns where
 * the closed log can be read; the next append starts a new one.
 */
export interface WorkLogPort {
  append(group: string, rows: readonly WorkLogRow[], options?: FencedWrite): Promise<void>;
  flush(): Promise<void>;
  /** The rows of the group's open log, in order. */
  read(group: string): Promise<WorkLogRow[]>;
  archive(group: string): Promise<string | undefined>;
  /** The groups that have an open log (appended to and not archived since), sorted. */
  groups(): Promise<string[]>;
  /**
   * The START rows of the group's open log (and, with `archivedSince`, of its archived logs
   * last written since then) that have no FINISH row after them in those logs, read oldest
   * first (a log can be archived between an attempt's START and FINISH), in log order. The
   * rows pair as `openStartsAcrossLogs` says (core `worklog/open-rows.ts`).
   */
  openStarts(group: string, options?: OpenStartsOptions): Promise<OpenWorkLogStart[]>;
}
