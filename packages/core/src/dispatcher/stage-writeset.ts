import type { WriteSetReport } from '../isolation/types.js';
import { STAGE_FAILURE_BUDGET } from '../selection/on-failure.js';
import type { Correction } from '../state/state-schema.js';
import { advance } from './advance.js';
import { blockTask } from './apply-failure.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';
import { isolationOf } from './task-worktree.js';

/**
 * Worktree isolation, after the worker (and self-check): the worktree's diff against its
 * base (commits the agent made included) is checked against the declared write set. Files
 * outside it, changes to git metadata or no change at all go back to the worker as a
 * correction naming them, charged to `failures.writeset` (ten in a row block the task);
 * under `writeSet: "revert-outside"` the outside files are reset to their base first.
 */
export async function runWriteSetStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const isolation = isolationOf(ctx);
  if (!isolation) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  const writeSet = rt.task.writeSet.map((e) => e.path);
  const report = await isolation.inspect(rt.id, writeSet);
  // No agent can fix the repository's ignore rules: a human decides, and nothing lands half.
  if (report.ignored?.length) {
    blockTask(ctx, rt, {
      stage: 'writeset',
      reason: `the write set names files ignored by git, so the task's worktree cannot carry them to the source: ${report.ignored.join(', ')}. Stop ignoring them (.gitignore), drop them from the write set, or set isolation: "none"`,
      evidence: report.ignored.map((f) => `ignored by git: ${f}`),
    });
    return persist(ctx, rt);
  }
  let reverted: string[] = [];
  if (report.outside.length > 0 && ctx.options.writeSetPolicy === 'revert-outside')
    reverted = await isolation.revertOutside(rt.id, writeSet);
  const correction = writeSetCorrection(report, writeSet, reverted);
  if (!correction) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'writeset-violation',
    detail: correction.summary,
    files: [...report.gitMetadata, ...(report.escapingLinks ?? []), ...report.outside],
  });
  if (rt.state.failures.writeset + 1 >= STAGE_FAILURE_BUDGET) {
    rt.state.failures.writeset += 1;
    blockTask(ctx, rt, {
      stage: 'writeset',
      reason: `${rt.state.failures.writeset} consecutive write-set corrections: ${correction.summary}`,
      evidence: correction.evidence,
    });
    return persist(ctx, rt);
  }
  advance(rt, 'writeset-violated', { correction });
  await persist(ctx, rt);
}

/** The correction for a report, or undefined when the changes respect the write set. */
export function writeSetCorrection(
  report: WriteSetReport,
  writeSet: readonly string[],
  reverted: readonly string[] = [],
): Correction | undefined {
  const allowed = `the plan's write set: ${writeSet.join(', ') || '(none)'}`;
  if (report.gitMetadata.length > 0)
    return {
      source: 'writeset',
      summary: `changes to git metadata are refused (${report.gitMetadata.join(', ')}): do not run git; the dispatcher commits your changes`,
      evidence: report.gitMetadata,
    };
  if (report.escapingLinks?.length)
    return {
      source: 'writeset',
      summary: `symbolic links pointing outside the repository are refused (${report.escapingLinks.join(', ')}): replace each with a regular file holding the content it needs`,
      evidence: report.escapingLinks.map((f) => `symbolic link out of the repository: ${f}`),
    };
  if (report.outside.length > 0)
    return {
      source: 'writeset',
      summary:
        reverted.length > 0
          ? `files outside ${allowed} were changed and have been reset: ${report.outside.join(', ')}. Change only the files of the write set`
          : `files outside ${allowed} were changed: ${report.outside.join(', ')}. Undo those changes and change only the files of the write set`,
      evidence: report.outside.map((f) => `outside the write set: ${f}`),
    };
  if (report.empty)
    return {
      source: 'writeset',
      summary: `no change was made: implement the plan by changing ${allowed}`,
      evidence: [],
    };
  return undefined;
}
