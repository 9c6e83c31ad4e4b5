import { classifyCapture, genericClassifier } from '@switchyard/classifier-generic';
import { describe, expect, it } from 'vitest';
import { EXPECTED_CLASS, loadCaptures } from '../../../test/agent-contract/fixtures.js';
import { claudeCodeClassifier } from './classifier.js';

const classifiers = [claudeCodeClassifier(), genericClassifier()];
const captures = loadCaptures('claude-code');

describe('claude-code classifier on real claude-code output', () => {
  it('has a capture for every fault in both output modes', () => {
    const seen = new Set(captures.map((c) => `${c.mode}.${c.fault}`));
    for (const fault of Object.keys(EXPECTED_CLASS)) {
      expect(seen).toContain(`text.${fault}`);
      expect(seen).toContain(`jsonl.${fault}`);
    }
  });

  it.each(captures.map((c) => [c.mode, c.fault, c] as const))(
    '%s %s',
    async (_mode, fault, capture) => {
      const verdict = await classifyCapture(capture, classifiers);
      expect(verdict.class).toBe(EXPECTED_CLASS[fault]);
      if (verdict.class !== 'success') {
        expect(verdict.evidence.length).toBeGreaterThan(0);
        const output = `${capture.stdout}\n${capture.stderr}`;
        for (const line of verdict.evidence) {
          if (!line.startsWith('ended by ')) expect(output).toContain(line.replace(/…$/, ''));
        }
      }
    },
  );
});
