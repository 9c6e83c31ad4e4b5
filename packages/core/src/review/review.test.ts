import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateReview } from './evaluate-review.js';
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
