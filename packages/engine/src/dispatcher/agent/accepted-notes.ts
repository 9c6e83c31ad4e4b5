import { join } from 'node:path';
import { reviewFileName } from '@switchyard/core';
import { acceptedNotes, parseReview, reviewDisposition } from '@switchyard/tasks';
import { maxPlanBytes, readBoundedFile } from '@switchyard/utils';

/**
 * The `complete.log` lines of the approving review's accepted notes: the findings an
 * approval (or a minor-only CHANGES_REQUESTED) carried along without a worker round.
 */
export function acceptedNotesLines(taskDir: string, planLoop: number): string[] {
  const name = reviewFileName(planLoop);
  const read = readBoundedFile(join(taskDir, name), { maxBytes: maxPlanBytes() });
  if (!read.ok) return [];
  const review = parseReview(read.text);
  const notes = acceptedNotes(review);
  if (notes.length === 0) return [];
  const how =
    reviewDisposition(review) === 'approved-with-notes'
      ? 'CHANGES_REQUESTED with MINOR findings only: approved with notes, no worker round'
      : 'approved';
  return [
    `accepted notes: ${notes.length} (${how})`,
    ...notes.map((f) => `  ${name}:${f.line}: [${f.severity}] ${f.text}`),
  ];
}
