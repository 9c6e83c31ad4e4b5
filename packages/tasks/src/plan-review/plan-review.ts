import { type FindingSeverity, parseReview } from '../review/parse-review.js';

/** A plan handed to the plan reviewer: where it is and what it says. */
export interface PlanUnderReview {
  /** Path as shown to the reviewer and in findings (workspace-relative when possible). */
  path: string;
  text: string;
}

/** One finding of a plan review. */
export interface PlanFinding {
  severity: FindingSeverity;
  text: string;
  /** Line of the finding in the reviewer's findings file. */
  line: number;
}

/** What a plan review found, counted by severity. */
export interface PlanReviewResult {
  findings: PlanFinding[];
  counts: { critical: number; moderate: number; minor: number };
  /** True when any finding is CRITICAL (`run --review-plans` stops then). */
  critical: boolean;
}

/** What the reviewer is asked to look for, in this order. */
export const PLAN_REVIEW_CHECKS = [
  'unclear goal: a worker could not tell what "done" looks like from the plan alone',
  'missing or untestable Definition of Done: no command, or a command/assertion that cannot fail when the work is wrong',
  'write set too broad (whole folders, files the change need not touch) or too narrow (files the checklist clearly needs but does not list)',
  'missing dependencies: the plan relies on work another task produces without `depends_on` naming it',
] as const;

/**
 * The prompt of a plan review: every plan in full, what to check, and the findings contract
 * (list items tagged `[CRITICAL]`, `[MODERATE]`, `[MINOR]`, each naming the plan), written to
 * the file named by `SWITCHYARD_REVIEW_FILE`.
 */
export function planReviewPrompt(plans: readonly PlanUnderReview[]): string {
  const body = plans.map((p) => `### ${p.path}\n\n\`\`\`\`\n${p.text.trimEnd()}\n\`\`\`\`\n`);
  return [
    '# Review these plans before any of them runs',
    '',
    'You review task plans for an unattended coding-agent run. Do not change any file except the findings file.',
    'Check each plan for:',
    ...PLAN_REVIEW_CHECKS.map((c) => `- ${c}`),
    '',
    'Write your findings to the file named by the environment variable SWITCHYARD_REVIEW_FILE, as a Markdown list, one finding per item, each starting with its severity and naming the plan:',
    '- `[CRITICAL] <plan path>: …` — running the plan as written would waste the run (no way to tell done, a DoD that cannot fail, a missing dependency that makes it fail).',
    '- `[MODERATE] <plan path>: …` — it can run, but the result will likely need another loop.',
    '- `[MINOR] <plan path>: …` — wording, small gaps.',
    'End with a line `Verdict: APPROVED` when nothing is CRITICAL, else `Verdict: CHANGES_REQUESTED`. Write no findings when the plans are fine.',
    '',
    '## Plans',
    '',
    ...body,
  ].join('\n');
}

/** Reads a findings file written by the reviewer (the review contract's severity tags). */
export function parsePlanFindings(text: string): PlanReviewResult {
  const findings = parseReview(text).findings.map(({ severity, text: t, line }) => ({
    severity,
    text: t,
    line,
  }));
  const count = (s: FindingSeverity) => findings.filter((f) => f.severity === s).length;
  const counts = {
    critical: count('CRITICAL'),
    moderate: count('MODERATE'),
    minor: count('MINOR'),
  };
  return { findings, counts, critical: counts.critical > 0 };
}
