import { join } from 'node:path';
import { parseReview } from '@switchyard/tasks';
import { maxPlanBytes, readBoundedFile } from '@switchyard/utils';
import { reviewFileOf } from '../../lifecycle/index.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** The review files of the task's current plan loop (the red-team one too when asked). */
export function loopReviewFiles(rt: TaskRuntime): string[] {
  const loop = rt.state.planLoop;
  return [
    reviewFileOf('review', loop),
    ...(rt.task.review === 'red-team' ? [reviewFileOf('redteam', loop)] : []),
  ];
}

/**
 * The MINOR findings of this loop's reviews, as `CODE_REVIEW-N.md:line: text`, when they are
 * all the reviews found (no CRITICAL or MODERATE one): what a fixup may apply without a worker
 * round. Empty otherwise.
 */
export function minorOnlyFindings(rt: TaskRuntime): string[] {
  const found: string[] = [];
  for (const name of loopReviewFiles(rt)) {
    const read = readBoundedFile(join(rt.task.dir, name), { maxBytes: maxPlanBytes() });
    if (!read.ok) continue;
    for (const f of parseReview(read.text).findings) {
      if (f.severity !== 'MINOR') return [];
      found.push(`${name}:${f.line}: ${f.text}`);
    }
  }
  return found;
}

/**
 * The lifecycle fact of an approving review: the fixup stage runs when the project names a
 * fixup target, the task is an agent's, and this loop's findings are MINOR only (read after
 * the review that approved wrote its file).
 */
export function minorNotesFact(ctx: DispatchContext, rt: TaskRuntime): { minorNotes: boolean } {
  const configured = ctx.options.fixupTarget !== undefined && rt.task.runner !== 'local';
  return { minorNotes: configured && minorOnlyFindings(rt).length > 0 };
}
