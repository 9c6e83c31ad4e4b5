// The fixture suite every agent classifier package runs on its recorded real-CLI captures.
import type { ClassifierPlugin } from '@switchyard/core';
import { unverifiedVersionWarning } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import { classifyCapture } from '../../plugins/classifier-generic/src/fixture-harness.js';
import { genericClassifier } from '../../plugins/classifier-generic/src/generic-classifier.js';
import { EXPECTED_CLASS, loadReleaseLines } from './fixtures.js';

/**
 * Declares the suite for `agent`, per captured release line: a capture exists for every
 * fault in both output modes, each capture gets its expected class with evidence quoted from
 * the output, and a clean exit whose prose mentions quota and 429s stays success.
 * `classifier` runs before the generic one.
 */
export function describeCaptureFixtures(agent: string, classifier: ClassifierPlugin): void {
  const classifiers = [classifier, genericClassifier()];
  const lines = loadReleaseLines(agent);

  describe.each(lines.map((l) => [l.line, l] as const))(
    `${agent} %s: classifier on real output`,
    (_line, { captures }) => {
      it('its version is on a release line the classifier declares verified', () => {
        for (const c of captures) {
          expect(unverifiedVersionWarning(agent, c.version, [classifier])).toBeUndefined();
        }
        expect(unverifiedVersionWarning(agent, '99.0.0', [classifier])).toMatch(
          new RegExp(`^classifier rules were verified for ${agent} .+; this is 99\\.0\\.0$`),
        );
      });

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
          const reply = /done\./.test(clean.stdout + clean.stderr) ? 'done.' : 'done';
          const run = {
            ...clean,
            stdout: clean.stdout.split(reply).join(prose),
            stderr: clean.stderr.split(reply).join(prose),
          };
          expect(run.stdout + run.stderr).toContain(prose);
          expect((await classifyCapture(run, classifiers)).class).toBe('success');
        },
      );
    },
  );
}
