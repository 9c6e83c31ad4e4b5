import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCorrectionPacket, citedRule } from './correction-packet.js';
import { reviewDisposition } from './disposition.js';
import { evaluateReview } from './evaluate-review.js';
import { failingLines } from './failing-lines.js';
import { parseReview } from './parse-review.js';

describe('parseReview', () => {
  it('reads the verdict and graded findings with their lines', () => {
    const review = parseReview(
      [
        '# Code review 1',
        '',
        '**Verdict:** CHANGES_REQUESTED',
        '',
        '## Findings',
        '',
        '- [CRITICAL] the parser drops the last line',
        '  when it has no newline',
        '- [MINOR] rename `x`',
        '1. [MODERATE] layering: core imports the CLI',
        '- a plain note, not a finding',
        '',
        '```',
        'Verdict: APPROVED',
        '- [CRITICAL] inside code: ignored',
        '```',
      ].join('\n'),
    );
    expect(review.problems).toEqual([]);
    expect(review.verdict).toBe('CHANGES_REQUESTED');
    expect(review.verdictLine).toBe(3);
    expect(review.findings).toEqual([
      {
        severity: 'CRITICAL',
        text: 'the parser drops the last line when it has no newline',
        line: 7,
      },
      { severity: 'MINOR', text: 'rename x', line: 9 },
      { severity: 'MODERATE', text: 'layering: core imports the CLI', line: 10 },
    ]);
  });

  it('accepts an approved review with minor findings and the verdict as a heading', () => {
    const review = parseReview('## Verdict: APPROVED\n\n- [MINOR] typo in a comment\n');
    expect(review).toMatchObject({ verdict: 'APPROVED', problems: [] });
  });

  it('reports every contract breach', () => {
    expect(parseReview('Looks good to me.').problems).toEqual([
      expect.stringMatching(/^no verdict line/),
    ]);
    expect(parseReview('Verdict: APPROVED\n\nVerdict: CHANGES_REQUESTED\n').problems).toEqual([
      '2 verdict lines (lines 1, 3); write exactly one',
    ]);
    expect(parseReview('Verdict: LGTM').problems).toEqual([
      'line 1: verdict "LGTM" is neither APPROVED nor CHANGES_REQUESTED',
    ]);
    expect(parseReview('Verdict: CHANGES_REQUESTED\n\nPlease fix things.').problems[0]).toMatch(
      /without a finding/,
    );
    expect(parseReview('Verdict: APPROVED\n\n- [CRITICAL] data loss\n').problems).toEqual([
      'line 3: APPROVED while listing a CRITICAL finding',
    ]);
  });
});

describe('evaluateReview', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-review-'));
    return { dir, reviewFile: join(dir, 'CODE_REVIEW-1.md'), nextPlanFile: join(dir, 'PLAN-2.md') };
  };
  const validatePlan = (_file: string, source: string) =>
    source.includes('## Modified Files Summary') ? [] : ['PLAN-2.md: no Modified Files Summary'];

  it('approves, requests changes with a valid next plan, or fails review control', () => {
    const { reviewFile, nextPlanFile } = setup();
    const input = { reviewFile, nextPlanFile, validatePlan };
    expect(evaluateReview(input)).toEqual({
      kind: 'review-control-failure',
      evidence: [`CODE_REVIEW-1.md was not written (expected at ${reviewFile})`],
    });
    writeFileSync(reviewFile, 'Verdict: APPROVED\n');
    expect(evaluateReview(input).kind).toBe('approved');

    writeFileSync(reviewFile, 'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] split the module\n');
    expect(evaluateReview(input)).toMatchObject({
      kind: 'review-control-failure',
      evidence: [expect.stringMatching(/PLAN-2.md was not written/)],
    });
    writeFileSync(nextPlanFile, '# nothing\n');
    expect(evaluateReview(input)).toMatchObject({
      kind: 'review-control-failure',
      evidence: [
        'CODE_REVIEW-1.md: CHANGES_REQUESTED but PLAN-2.md is invalid',
        'PLAN-2.md: no Modified Files Summary',
      ],
    });
    writeFileSync(nextPlanFile, '## Modified Files Summary\n- a.txt\n');
    expect(evaluateReview(input)).toMatchObject({
      kind: 'changes-requested',
      nextPlan: nextPlanFile,
    });

    writeFileSync(reviewFile, 'fine by me');
    expect(evaluateReview(input)).toMatchObject({
      kind: 'review-control-failure',
      evidence: [expect.stringMatching(/^CODE_REVIEW-1.md: no verdict line/)],
    });
  });
});

describe('finding evidence and correction packets', () => {
  it('keeps the rest of a finding verbatim as its detail', () => {
    const review = parseReview(
      [
        'Verdict: CHANGES_REQUESTED',
        '',
        '- [CRITICAL] the build breaks',
        '',
        '  ```',
        "  src/a.ts(3,1): error TS2304: Cannot find name 'x'.",
        '  ```',
        '- [MINOR] one line only',
      ].join('\n'),
    );
    expect(review.findings[0]!.detail).toBe(
      "```\nsrc/a.ts(3,1): error TS2304: Cannot find name 'x'.\n```",
    );
    expect(review.findings[1]!.detail).toBeUndefined();
  });

  it('grades a review: approve, approve with notes, revise, reject', () => {
    const of = (body: string) => reviewDisposition(parseReview(body));
    expect(of('Verdict: APPROVED\n\n- [MODERATE] x\n')).toBe('approved');
    expect(of('Verdict: CHANGES_REQUESTED\n\n- [MINOR] x\n- [MINOR] y\n')).toBe(
      'approved-with-notes',
    );
    expect(of('Verdict: CHANGES_REQUESTED\n\n- [MINOR] x\n- [MODERATE] y\n')).toBe('revise');
    expect(of('Verdict: CHANGES_REQUESTED\n\n- [MODERATE] y\n- [CRITICAL] z\n')).toBe('reject');
  });

  it('needs no next plan for a minor-only CHANGES_REQUESTED', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-review-'));
    const reviewFile = join(dir, 'CODE_REVIEW-1.md');
    writeFileSync(reviewFile, 'Verdict: CHANGES_REQUESTED\n\n- [MINOR] rename x\n');
    expect(
      evaluateReview({ reviewFile, nextPlanFile: join(dir, 'PLAN-2.md'), validatePlan: () => [] })
        .kind,
    ).toBe('approved-with-notes');
  });

  it('picks the failing lines of each runner, verbatim', () => {
    const output = [
      ' ✓ src/ok.test.ts (2 tests)',
      ' FAIL  src/a.test.ts > sums',
      'not ok 2 - parses',
      '--- FAIL: TestSum (0.00s)',
      'E       assert 4 == 5',
      "thread 'sum' panicked at src/lib.rs:3:5:",
      'test result: FAILED. 1 passed; 1 failed',
      'ok  	example.com/m	0.01s',
    ];
    expect(failingLines(output)).toEqual(output.slice(1, 7));
  });

  it('builds a packet with only the findings to fix, the rule cited and the files', () => {
    const review = parseReview(
      'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] global state; violates STYLE.md §State\n',
    );
    expect(citedRule(review.findings[0]!)).toBe('STYLE.md §State');
    expect(citedRule({ text: 'see ARCHITECTURE.md#layers for why' })).toBe(
      'ARCHITECTURE.md#layers',
    );
    const packet = buildCorrectionPacket({
      task: 'g/t',
      reviewedLoop: 2,
      reviewFile: 'CODE_REVIEW-2.md',
      findings: review.findings,
      reviewerPlan:
        '# prose\n\nwhy and how\n\n## Modified Files Summary\n\n- a.ts\n\n## Implementation Checklist\n\n- [ ] fix\n',
      failingOutput: [{ source: 'gate', lines: ['FAIL x'] }],
    });
    expect(packet).toBe(
      [
        '# Correction packet: g/t, plan loop 3',
        '',
        'Generated from CODE_REVIEW-2.md: fix exactly the findings below, in the files listed.',
        '',
        '## Findings to fix',
        '',
        '### [MODERATE] global state; violates STYLE.md §State',
        '',
        '- action: revise: comply with the rule it cites',
        '- source: CODE_REVIEW-2.md:3',
        '- rule: STYLE.md §State',
        '',
        // No CRITICAL finding: the failing output section is left out.
        '## Modified Files Summary',
        '',
        '- a.ts',
        '',
        '## Implementation Checklist',
        '',
        '- [ ] fix',
        '',
      ].join('\n'),
    );
  });
});
