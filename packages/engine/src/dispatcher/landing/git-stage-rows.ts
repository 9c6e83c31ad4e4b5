import { join, relative } from 'node:path';
import { redactDeep } from '@switchyard/runner-kit';
import { writeOwnedFileBelow } from '@switchyard/utils';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** What one write-set check, apply or change verification judged, for the group's work log. */
export interface GitStageRow {
  role: 'writeset' | 'apply' | 'gate';
  /** When the stage started (the START row's time). */
  startedAt: Date;
  /** What was judged: `changed: …`, `outside: …`, `no change`, `commit <sha>`, `rolled back <sha>`… */
  artifact: string;
  /** The command-like label of the agent/model column. */
  label: string;
  /** `success` or why not (`writeset-violated`, `conflict`, `rolled-back`, `refused`). */
  result: string;
  /** Kept as the row's evidence file (its locator). */
  evidence: Record<string, unknown>;
}

/** At most this many files are named in the artifact cell (all of them are in the evidence). */
const FILES_IN_CELL = 5;

/** `prefix: a, b, c (+2 more)`. */
export function filesCell(prefix: string, files: readonly string[]): string {
  const shown = files.slice(0, FILES_IN_CELL).join(', ');
  const more = files.length > FILES_IN_CELL ? ` (+${files.length - FILES_IN_CELL} more)` : '';
  return `${prefix}: ${shown}${more}`;
}

/**
 * The work-log rows of a git stage that judged the agent's work (write-set check, apply):
 * START and FINISH, written together once the stage has its result, since the artifact cell
 * is that result and START and FINISH must name the same one. The attempt column counts the
 * stage's consecutive failures + 1; the locator is an evidence file with the whole report.
 * A crash before the rows are written loses nothing: the stage runs again. Returns the
 * evidence file (a correction or block cites it).
 */
export function writeGitStageRows(ctx: DispatchContext, rt: TaskRuntime, row: GitStageRow): string {
  const state = rt.state;
  const dir = join(ctx.stateDir, 'gates', rt.id);
  const file = join(
    dir,
    `${row.role}.${state.planLoop}.${row.startedAt.getTime().toString(36)}.json`,
  );
  writeOwnedFileBelow(
    ctx.workspace,
    file,
    `${JSON.stringify(redactDeep({ task: rt.id, role: row.role, result: row.result, ...row.evidence }, ctx.secrets), null, 2)}\n`,
    'replace',
  );
  const cells = {
    task: rt.id,
    artifact: row.artifact,
    planLoop: state.planLoop,
    maxPlanLoops: maxPlanLoopsOf(rt),
    role: row.role,
    attempt: String(state.failures[row.role] + 1),
    agentModel: row.label,
    locator: relative(ctx.workspace, file),
  };
  ctx.workLog.finish(rt.group, {
    ...cells,
    kind: 'START',
    time: row.startedAt,
    result: 'running',
  });
  ctx.workLog.finish(rt.group, { ...cells, kind: 'FINISH', time: ctx.now(), result: row.result });
  return file;
}
