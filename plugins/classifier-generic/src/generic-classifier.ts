import { type ClassifierPlugin, defineClassifier } from '@switchyard/core';
import { eventCandidates } from './agent-classifier.js';
import { errorLineCandidates, isErrorEvidence } from './error-lines.js';
import { type ClassifierOptions, parseClassifierOptions } from './options.js';
import { PROVIDER_RULES } from './rules.js';
import { terminationVerdict, verdictFromLines } from './verdict.js';

const NAME = '@switchyard/classifier-generic';
const RETRY_LINE =
  /\b(?:retrying|reconnecting|retry(?:ing)? in \d|attempt \d+(?:\/\d+)? failed|will retry|backing off)\b/i;
/**
 * The one text form of an API error shared by several CLIs (and the testkit's fake agent):
 * `API Error: 429 …`, `[API Error: …]`. An unknown CLI's other lines are never evidence.
 */
export const API_ERROR_LINE = /^\s*\[?API Error\b/;

/**
 * The classifier of last resort, for every agent: terminal JSONL events, and — only when the
 * process failed — `API Error` lines at the end of stderr and stdout, matched against the
 * shared provider-fault rules. Prose (an assistant's message, a test runner's output) never
 * counts, on any exit code.
 */
export function genericClassifier(raw?: ClassifierOptions): ClassifierPlugin<ClassifierOptions> {
  const { options, extraRules } = parseClassifierOptions(NAME, raw);
  const rules = PROVIDER_RULES;
  const stderrLines = options.stderrLines ?? 40;
  return defineClassifier({
    meta: { name: NAME, version: '0.0.0' },
    agents: '*',
    options,
    classify(evidence, context) {
      const ended = terminationVerdict(evidence, [...extraRules, ...rules], context);
      if (ended !== undefined) return ended;
      const failed = evidence.exitCode !== 0;
      const stderr = evidence.stderrTail.slice(-stderrLines);
      const stdout = evidence.stdoutTail.slice(-5);
      if (failed && extraRules.length > 0) {
        const extra = verdictFromLines([...stderr, ...stdout], extraRules, context);
        if (extra !== undefined) return extra;
      }
      const candidates = eventCandidates(evidence);
      if (failed) {
        candidates.push(
          ...errorLineCandidates(stderr, API_ERROR_LINE),
          ...errorLineCandidates(stdout, API_ERROR_LINE),
        );
      }
      const gated = candidates.filter((c) => isErrorEvidence(c, API_ERROR_LINE));
      if (gated.length === 0) return undefined;
      const byMatch = new Map(gated.map((c) => [c.match, c.line]));
      const verdict = verdictFromLines(
        [...byMatch.keys()],
        rules,
        context,
        (m) => byMatch.get(m) ?? m,
      );
      if (verdict === undefined) return undefined;
      return failed ? verdict : { ...verdict, confidence: 'weak' };
    },
    isRetryLine: (line) => RETRY_LINE.test(line),
  });
}
