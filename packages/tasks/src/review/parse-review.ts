import { fromMarkdown } from 'mdast-util-from-markdown';
import { memoizeByText } from '../task/memo-by-text.js';

/** Severity of a review finding (seed 002's severity-stratified output). */
export type FindingSeverity = 'CRITICAL' | 'MODERATE' | 'MINOR';
/** The verdict line of a `CODE_REVIEW-<N>.md`. */
export type ReviewVerdict = 'APPROVED' | 'CHANGES_REQUESTED';

/** One finding: a list item starting `[CRITICAL]`, `[MODERATE]` or `[MINOR]`. */
export interface ReviewFinding {
  severity: FindingSeverity;
  text: string;
  line: number;
  /**
   * The rest of the list item, verbatim (nested code blocks, quoted output, sub-lists): the
   * evidence a correction packet carries without paraphrase. Absent when the item is one line.
   */
  detail?: string;
}

/** A parsed review. `problems` is empty exactly when the review follows the contract. */
export interface ParsedReview {
  verdict?: ReviewVerdict;
  verdictLine?: number;
  findings: ReviewFinding[];
  problems: string[];
}

interface Node {
  type: string;
  value?: string;
  children?: Node[];
  position?: { start: { line: number; offset?: number }; end: { offset?: number } };
}

const VERDICT = /^verdict\s*:\s*(.*)$/i;
const FINDING = /^\[(CRITICAL|MODERATE|MINOR)\]\s*(.*)$/s;

/**
 * Parses a review against the contract: exactly one line `Verdict: APPROVED` or
 * `Verdict: CHANGES_REQUESTED` (emphasis allowed, e.g. `**Verdict:** APPROVED`, also as a
 * heading; not inside code), and findings as list items starting with a severity tag.
 * CHANGES_REQUESTED needs at least one finding; APPROVED may not carry a CRITICAL one.
 * Remembered per text (see {@link memoizeByText}): the review stage, the completion check and
 * the archive's notes read the same review.
 */
export const parseReview = memoizeByText(parseReviewText);

function parseReviewText(source: string): ParsedReview {
  const root = fromMarkdown(source) as unknown as Node;
  const findings: ReviewFinding[] = [];
  const verdicts: { value: string; line: number }[] = [];
  const walk = (node: Node) => {
    if (node.type === 'paragraph' || node.type === 'heading') {
      for (const line of textOf(node).split('\n')) {
        const match = VERDICT.exec(line.trim());
        if (match) verdicts.push({ value: match[1]!.trim(), line: lineOf(node) });
      }
    }
    if (node.type === 'listItem') {
      const first = node.children?.find((c) => c.type === 'paragraph');
      const match = first ? FINDING.exec(textOf(first).trim()) : null;
      if (match) {
        const detail = detailOf(source, node, first!);
        findings.push({
          severity: match[1] as FindingSeverity,
          text: match[2]!.replace(/\s+/g, ' ').trim(),
          line: lineOf(node),
          ...(detail ? { detail } : {}),
        });
      }
    }
    if (node.type === 'code' || node.type === 'html') return;
    for (const child of node.children ?? []) walk(child);
  };
  walk(root);

  const problems: string[] = [];
  const review: ParsedReview = { findings, problems };
  if (verdicts.length === 0) {
    problems.push(
      'no verdict line: write exactly one line `Verdict: APPROVED` or `Verdict: CHANGES_REQUESTED`',
    );
  } else if (verdicts.length > 1) {
    problems.push(
      `${verdicts.length} verdict lines (lines ${verdicts.map((v) => v.line).join(', ')}); write exactly one`,
    );
  } else {
    const [only] = verdicts;
    if (only!.value === 'APPROVED' || only!.value === 'CHANGES_REQUESTED') {
      review.verdict = only!.value;
      review.verdictLine = only!.line;
    } else {
      problems.push(
        `line ${only!.line}: verdict "${only!.value}" is neither APPROVED nor CHANGES_REQUESTED`,
      );
    }
  }
  if (review.verdict === 'CHANGES_REQUESTED' && findings.length === 0) {
    problems.push(
      'CHANGES_REQUESTED without a finding: list each as `- [CRITICAL|MODERATE|MINOR] …`',
    );
  }
  const critical = findings.find((f) => f.severity === 'CRITICAL');
  if (review.verdict === 'APPROVED' && critical) {
    problems.push(`line ${critical.line}: APPROVED while listing a CRITICAL finding`);
  }
  return review;
}

function textOf(node: Node): string {
  if (node.type === 'break') return '\n';
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map(textOf).join('');
}

/** The source of a list item after its first paragraph, dedented, or undefined when empty. */
function detailOf(source: string, item: Node, first: Node): string | undefined {
  const start = first.position?.end.offset;
  const end = item.position?.end.offset;
  if (start === undefined || end === undefined || end <= start) return undefined;
  const lines = source.slice(start, end).split('\n').slice(1);
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  if (indents.length === 0) return undefined;
  const cut = Math.min(...indents);
  return lines
    .map((l) => l.slice(cut))
    .join('\n')
    .trim();
}

function lineOf(node: Node): number {
  return node.position?.start.line ?? 0;
}
