import type { WorkLogRow } from '../worklog/work-log-row.js';
import type { FencedWrite } from './fence.js';

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
}
