import { splitFrontMatter } from '../task/front-matter.js';
import { parseSections } from '../task/markdown.js';
import { CHECKLIST_HEADINGS, DONE_HEADING, WRITE_SET_HEADINGS } from '../task/sections.js';
import type { ReviewFinding } from './parse-review.js';

/** Output quoted verbatim as evidence (a gate run, a test run, a verification check). */
export interface FailingOutput {
  /** Where it comes from, e.g. "definition-of-done `pnpm test` (gate.2.x.log)". */
  source: string;
  lines: readonly string[];
}

/** Input of {@link buildCorrectionPacket}. */
export interface CorrectionPacketInput {
  task: string;
  /** The plan loop that was reviewed (the packet is plan loop `reviewedLoop + 1`). */
  reviewedLoop: number;
  /** The review file name, for finding references (`CODE_REVIEW-1.md`). */
  reviewFile: string;
  /** Findings to fix (CRITICAL and MODERATE). */
  findings: readonly ReviewFinding[];
  /** The follow-up plan as the reviewer wrote it: its front matter, files, checklist and definition of done are kept verbatim. */
  reviewerPlan: string;
  /** Failing output attached to the CRITICAL findings (gate output, failing test lines). */
  failingOutput: readonly FailingOutput[];
}

/** Sections of the reviewer's plan the packet keeps (the task contract), in this order. */
const KEPT_SECTIONS: readonly (readonly string[])[] = [
  WRITE_SET_HEADINGS,
  CHECKLIST_HEADINGS,
  [DONE_HEADING],
];
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

const ACTION: Record<ReviewFinding['severity'], string> = {
  CRITICAL: 'reject: make it build, pass and exist',
  MODERATE: 'revise: comply with the rule it cites',
  MINOR: 'note',
};

/**
 * Builds the follow-up `PLAN-<N+1>.md` as a correction packet: the reviewer's front matter,
 * then only the findings to fix (grade, what to do, the rule a MODERATE one cites, the
 * finding's own evidence verbatim), the exact failing output for CRITICAL ones, and the
 * reviewer's Modified Files Summary, Implementation Checklist and Definition of Done
 * verbatim. Prose beyond those is left out (the reviewer's plan is kept beside it).
 */
export function buildCorrectionPacket(input: CorrectionPacketInput): string {
  const split = splitFrontMatter(input.reviewerPlan);
  const out: string[] = [];
  if (split.yaml !== undefined) out.push('---', split.yaml, '---');
  out.push(
    `# Correction packet: ${input.task}, plan loop ${input.reviewedLoop + 1}`,
    '',
    `Generated from ${input.reviewFile}: fix exactly the findings below, in the files listed.`,
    '',
    '## Findings to fix',
    '',
  );
  for (const f of input.findings) {
    out.push(`### [${f.severity}] ${f.text}`, '');
    out.push(`- action: ${ACTION[f.severity]}`);
    out.push(`- source: ${input.reviewFile}:${f.line}`);
    if (f.severity === 'MODERATE')
      out.push(
        `- rule: ${citedRule(f) ?? 'not cited by the reviewer; name the rule in your change summary'}`,
      );
    out.push('');
    if (f.detail) out.push(fence(f.detail.split('\n')), '');
  }
  const critical = input.findings.some((f) => f.severity === 'CRITICAL');
  const outputs = input.failingOutput.filter((o) => o.lines.length > 0);
  if (critical && outputs.length > 0) {
    out.push('## Failing output', '');
    for (const o of outputs) out.push(`From ${o.source}:`, '', fence(o.lines), '');
  }
  const lines = split.body.split('\n');
  const sections = parseSections(split.body);
  for (const names of KEPT_SECTIONS) {
    const wanted = names.map(norm);
    const index = sections.findIndex((s) => s.depth === 2 && wanted.includes(norm(s.heading)));
    if (index < 0) continue;
    const from = sections[index]!.line - 1;
    const to = (sections[index + 1]?.line ?? lines.length + 1) - 1;
    out.push(lines.slice(from, to).join('\n').trimEnd(), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/**
 * The rule a MODERATE finding cites: the text after `rule:` / `violates` / `per`, or a
 * referenced document (`ARCHITECTURE.md`, `STYLE.md §3`…).
 */
export function citedRule(finding: Pick<ReviewFinding, 'text' | 'detail'>): string | undefined {
  const text = `${finding.text}\n${finding.detail ?? ''}`;
  const explicit = /\b(?:rule|violates|breaks|per)\b\s*:?\s*([^\n]+)/i.exec(text);
  if (explicit) return explicit[1]!.trim();
  const doc = /\b[\w./-]+\.md(?:\s*(?:§|#)\s*[\w.-]+)?/.exec(text);
  return doc?.[0];
}

/** A fenced block long enough not to be closed by a fence inside the quoted text. */
function fence(lines: readonly string[]): string {
  const longest = Math.max(2, ...lines.map((l) => /^\s*(`+)/.exec(l)?.[1]?.length ?? 0));
  const mark = '`'.repeat(longest + 1);
  return [mark, ...lines, mark].join('\n');
}
