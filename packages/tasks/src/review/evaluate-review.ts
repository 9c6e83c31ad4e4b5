import { basename } from 'node:path';
import { maxPlanBytes, readBoundedFile } from '@switchyard/utils';
import { reviewDisposition } from './disposition.js';
import { type ParsedReview, parseReview } from './parse-review.js';

/** The outcome of a review attempt whose process succeeded. */
export type ReviewOutcome =
  | { kind: 'approved'; review: ParsedReview }
  /** CHANGES_REQUESTED with MINOR findings only: approved, the findings become accepted notes. */
  | { kind: 'approved-with-notes'; review: ParsedReview }
  | { kind: 'changes-requested'; review: ParsedReview; nextPlan: string }
  | { kind: 'review-control-failure'; evidence: string[]; review?: ParsedReview };

/** Input of {@link evaluateReview}. */
export interface EvaluateReviewInput {
  /** The `CODE_REVIEW-<N>.md` the reviewer was told to write. */
  reviewFile: string;
  /** The `PLAN-<N+1>.md` the reviewer writes when requesting changes. */
  nextPlanFile: string;
  /**
   * Validates the next plan (the task contract's PLAN parser); returns its problems as
   * lines, empty when valid.
   */
  validatePlan: (file: string, source: string) => string[];
}

/**
 * Judges the files a reviewer left behind. A missing or malformed review, or
 * CHANGES_REQUESTED without a valid next plan, is a `review-control-failure` whose evidence
 * names the file and every problem: the task keeps its target and retries within its budget.
 */
export function evaluateReview(input: EvaluateReviewInput): ReviewOutcome {
  const name = basename(input.reviewFile);
  // Agent-written files: bounded regular files only (a FIFO or /dev/zero must not hang or fill memory).
  const reviewRead = readBoundedFile(input.reviewFile, { maxBytes: maxPlanBytes() });
  if (!reviewRead.ok) {
    return {
      kind: 'review-control-failure',
      evidence: [
        reviewRead.reason === 'missing'
          ? `${name} was not written (expected at ${input.reviewFile})`
          : `${name} ${reviewRead.message} (${reviewRead.hint})`,
      ],
    };
  }
  const review = parseReview(reviewRead.text);
  if (review.problems.length > 0) {
    return {
      kind: 'review-control-failure',
      review,
      evidence: review.problems.map((p) => `${name}: ${p}`),
    };
  }
  if (review.verdict === 'APPROVED') return { kind: 'approved', review };
  // Minor-only findings never cost a worker round, so no next plan is needed for them.
  if (reviewDisposition(review) === 'approved-with-notes') {
    return { kind: 'approved-with-notes', review };
  }
  const planName = basename(input.nextPlanFile);
  const planRead = readBoundedFile(input.nextPlanFile, { maxBytes: maxPlanBytes() });
  if (!planRead.ok) {
    return {
      kind: 'review-control-failure',
      review,
      evidence: [
        planRead.reason === 'missing'
          ? `${name}: CHANGES_REQUESTED but ${planName} was not written (expected at ${input.nextPlanFile})`
          : `${name}: CHANGES_REQUESTED but ${planName} ${planRead.message} (${planRead.hint})`,
      ],
    };
  }
  const problems = input.validatePlan(input.nextPlanFile, planRead.text);
  if (problems.length > 0) {
    return {
      kind: 'review-control-failure',
      review,
      evidence: [`${name}: CHANGES_REQUESTED but ${planName} is invalid`, ...problems],
    };
  }
  return { kind: 'changes-requested', review, nextPlan: input.nextPlanFile };
}
