import { join } from 'node:path';
import { reviewDisposition } from '../review/disposition.js';
import { parseReview } from '../review/parse-review.js';
import { maxPlanBytes, readBoundedFile } from '../safe-fs/bounded-read.js';
import { planFileName, reviewFileName } from '../workspace/paths.js';
import type { TaskRuntime } from './context.js';
import { redTeamReviewFileName } from './red-team.js';
import { currentChecklist } from './stage-selfcheck.js';

/**
 * The completion promise, checked on the files before a task is archived as done: every
 * checklist item of the current plan ticked, and each required review of the current loop
 * (the review; the red-team review under `review: red-team`; none for `runner: local`)
 * approved (APPROVED, or CHANGES_REQUESTED with MINOR findings only). The definition of done is
 * guaranteed by the lifecycle (the review runs only after a passed gate). Returns the
 * broken promises, empty when the task may be archived.
 */
export function brokenPromises(rt: TaskRuntime): string[] {
  // A `runner: local` task has no agent to tick a checklist and no review: its promise is its
  // command's success and its definition of done, both guaranteed by the lifecycle.
  if (rt.task.runner === 'local') return [];
  const broken: string[] = [];
  const plan = planFileName(rt.state.planLoop);
  const open = currentChecklist(rt).filter((i) => !i.checked);
  for (const item of open) broken.push(`${plan}:${item.line}: checklist item open: ${item.text}`);
  for (const reviewName of requiredReviews(rt)) {
    const read = readBoundedFile(join(rt.task.dir, reviewName), { maxBytes: maxPlanBytes() });
    if (!read.ok) {
      broken.push(`${reviewName}: no approving review (${read.reason})`);
      continue;
    }
    const review = parseReview(read.text);
    const disposition = reviewDisposition(review);
    if (
      review.problems.length > 0 ||
      (disposition !== 'approved' && disposition !== 'approved-with-notes')
    )
      broken.push(`${reviewName}: the review of plan loop ${rt.state.planLoop} did not approve`);
  }
  return broken;
}

/** The review files the current loop needs approved: none for a local command, the red-team one too. */
function requiredReviews(rt: TaskRuntime): string[] {
  if (rt.task.runner === 'local') return [];
  const loop = rt.state.planLoop;
  const red = rt.task.review === 'red-team' ? [redTeamReviewFileName(loop)] : [];
  return [reviewFileName(loop), ...red];
}
