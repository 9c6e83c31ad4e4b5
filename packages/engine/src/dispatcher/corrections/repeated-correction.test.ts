import { newTaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { correctionFingerprint, countRepeat } from './repeated-correction.js';

/** The reason of an apply whose definition of done failed on the source (stage-apply.ts). */
const applyFailure = (file: string, at: string) => ({
  source: 'apply' as const,
  summary: `the definition of done failed on the source branch after your change was applied, so it was rolled back: \`node t.cjs\` on the source: expected exit code 0, got exit code 1\nFAIL at ${at}\noutput: ${file}`,
  evidence: ['FAIL on the source', `output: ${file}`],
});

describe('the same correction again', () => {
  it('ignores what changes from run to run: times, durations and the output file', () => {
    const first = applyFailure('/w/gates/g/t/source.1.mx62kuo0.log', '2026-12-01T10:00:01Z');
    const second = applyFailure('/w/gates/g/t/source.1.mx62kx9q.log', '2026-12-01T10:04:17Z');
    expect(correctionFingerprint(second)).toBe(correctionFingerprint(first));
    const other = { ...first, evidence: ['FAIL on line 3'] };
    expect(correctionFingerprint(other)).not.toBe(correctionFingerprint(first));
  });

  it('counts an unbroken run of the same correction on one stage', () => {
    const state = newTaskState('g/t');
    const correction = applyFailure('/w/a.log', '10:00:00');
    expect(countRepeat(state, 'apply', correction)).toBe(1);
    state.failures.apply = 1;
    expect(countRepeat(state, 'apply', applyFailure('/w/b.log', '10:01:00'))).toBe(2);
    state.failures.apply = 2;
    expect(countRepeat(state, 'apply', { ...correction, summary: 'a conflict' })).toBe(1);
    // A success of the stage in between (its counter back at 0) starts a new run.
    state.failures.apply = 0;
    expect(countRepeat(state, 'apply', { ...correction, summary: 'a conflict' })).toBe(1);
  });
});
