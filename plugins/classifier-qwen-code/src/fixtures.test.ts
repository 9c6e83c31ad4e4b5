import { classifyCapture, genericClassifier } from '@switchyard/classifier-generic';
import { describe, expect, it } from 'vitest';
import { EXPECTED_CLASS, loadCaptures } from '../../../test/agent-contract/fixtures.js';
import { qwenCodeClassifier } from './classifier.js';

const classifiers = [qwenCodeClassifier(), genericClassifier()];
const captures = loadCaptures('qwen-code');

describe('qwen-code classifier on real qwen-code output', () => {
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

  it.each(['text', 'jsonl'] as const)(
    '%s: a clean exit whose prose talks about quota and 429s is success',
    async (mode) => {
      const clean = captures.find((c) => c.mode === mode && c.fault === 'none')!;
      const prose =
        'API Error: Request rejected (429) rate limit quota exceeded RESOURCE_EXHAUSTED';
      const run = {
        ...clean,
        stdout: clean.stdout.split('done.').join(prose),
        stderr: clean.stderr.split('done.').join(prose),
      };
      expect(run.stdout + run.stderr).toContain(prose);
      expect((await classifyCapture(run, classifiers)).class).toBe('success');
    },
  );
});
