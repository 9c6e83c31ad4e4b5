// Retry hints are a prefilter: with them, the retry predicate must answer exactly as every
// classifier's isRetryLine on every line of the real CLI captures.
import { type ClassifierPlugin, retryLinePredicate } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { loadCaptures } from '../../../test/agent-contract/fixtures.js';
import { claudeCodeClassifier } from '../../classifier-claude-code/src/classifier.js';
import { codexClassifier } from '../../classifier-codex/src/classifier.js';
import { geminiCliClassifier } from '../../classifier-gemini-cli/src/classifier.js';
import { qwenCodeClassifier } from '../../classifier-qwen-code/src/classifier.js';
import { genericClassifier } from './generic-classifier.js';

const AGENTS: Record<string, ClassifierPlugin> = {
  'claude-code': claudeCodeClassifier(),
  codex: codexClassifier(),
  'gemini-cli': geminiCliClassifier(),
  'qwen-code': qwenCodeClassifier(),
};

/** Every line of every capture of the agent, plus retry wording in other cases and places. */
function lines(agent: string): string[] {
  const captured = loadCaptures(agent).flatMap((c) => [
    ...c.stdout.split(/\r?\n/),
    ...c.stderr.split(/\r?\n/),
  ]);
  const variants = captured.flatMap((l) => [l.toUpperCase(), l.toLowerCase(), `  ${l} (x2)`]);
  return [
    ...captured,
    ...variants,
    'RETRYING in 5s',
    'will retry later',
    'Attempt 3/5 failed',
    'backing off 2s',
    'Reconnecting... 2/5',
    '{"type":"system","subtype" : "api_retry","attempt":2}',
    '{"type":"system","subtype":"retry","attempt":2}',
    'the retries counter is 3',
  ];
}

describe('retry hints', () => {
  it.each(Object.entries(AGENTS))('%s: hinted predicate equals every hook', (agent, classifier) => {
    const classifiers = [classifier, genericClassifier()];
    const predicate = retryLinePredicate(classifiers);
    let retries = 0;
    for (const line of lines(agent)) {
      const slow = classifiers.some((c) => c.isRetryLine?.(line));
      expect(predicate(line), line).toBe(slow);
      if (slow) retries++;
    }
    expect(retries).toBeGreaterThan(0);
  });

  it.each(Object.entries(AGENTS))(
    '%s: every retry line holds one of its own hints',
    (agent, classifier) => {
      for (const c of [classifier, genericClassifier()]) {
        const hints = (c.retryHints ?? []).map((h) => h.toLowerCase());
        expect(hints.length).toBeGreaterThan(0);
        for (const line of lines(agent)) {
          if (c.isRetryLine?.(line)) {
            expect(
              hints.some((h) => line.toLowerCase().includes(h)),
              line,
            ).toBe(true);
          }
        }
      }
    },
  );
});
