import type { ParsedReview, ReviewFinding } from './parse-review.js';

/**
 * What a valid review leads to, by the severity of its findings:
 * - `approved`: APPROVED (its MINOR/MODERATE findings are kept as accepted notes);
 * - `approved-with-notes`: CHANGES_REQUESTED whose findings are all MINOR (naming, style):
 *   not worth a worker round, the task is archived with the findings as accepted notes;
 * - `revise`: the worst finding is MODERATE (works, but breaks a rule): plan loop N+1;
 * - `reject`: at least one CRITICAL finding (broken, missing, failing): plan loop N+1 whose
 *   packet carries the exact failing output.
 */
export type ReviewDisposition = 'approved' | 'approved-with-notes' | 'revise' | 'reject';

export function reviewDisposition(
  review: Pick<ParsedReview, 'verdict' | 'findings'>,
): ReviewDisposition {
  if (review.verdict === 'APPROVED') return 'approved';
  if (review.findings.some((f) => f.severity === 'CRITICAL')) return 'reject';
  if (review.findings.some((f) => f.severity === 'MODERATE')) return 'revise';
  return 'approved-with-notes';
}

/** The findings a follow-up plan must fix (MINOR ones never cost a worker round). */
export function findingsToFix(review: Pick<ParsedReview, 'findings'>): ReviewFinding[] {
  return review.findings.filter((f) => f.severity !== 'MINOR');
}

/** Findings an approval carries along as accepted notes (recorded in `complete.log`). */
export function acceptedNotes(review: Pick<ParsedReview, 'findings'>): ReviewFinding[] {
  return review.findings.filter((f) => f.severity !== 'CRITICAL');
}
