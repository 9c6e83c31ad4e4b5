import { type ClassifierPlugin, defineClassifier } from '@switchyard/core';
import { type ClassifierOptions, parseClassifierOptions } from './options.js';
import { PROVIDER_RULES } from './rules.js';
import { eventText, terminationVerdict, verdictFromLines } from './verdict.js';

const NAME = '@switchyard/classifier-generic';
const RETRY_LINE =
  /\b(?:retrying|reconnecting|retry(?:ing)? in \d|attempt \d+(?:\/\d+)? failed|will retry|backing off)\b/i;

/**
 * The classifier of last resort, for every agent: terminal JSONL events, and — only when the
 * process failed — the tail of stderr and the last stdout lines, matched against the shared
 * provider-fault rules. Returns nothing for a clean exit, so prose never counts.
 */
export function genericClassifier(raw?: ClassifierOptions): ClassifierPlugin<ClassifierOptions> {
  const { options, extraRules } = parseClassifierOptions(NAME, raw);
  const rules = [...extraRules, ...PROVIDER_RULES];
  const stderrLines = options.stderrLines ?? 40;
  return defineClassifier({
    meta: { name: NAME, version: '0.0.0' },
    agents: '*',
    options,
    classify(evidence, context) {
      const ended = terminationVerdict(evidence, rules, context);
      if (ended !== undefined) return ended;
      const events = evidence.terminalEvents;
      const failed = evidence.exitCode !== 0;
      if (!failed && events.length === 0) return undefined;
      const derived = new Map<string, string>();
      for (const e of events) derived.set(eventText(e.event), e.raw);
      const lines = [...derived.keys()];
      if (failed) {
        lines.push(...evidence.stderrTail.slice(-stderrLines), ...evidence.stdoutTail.slice(-5));
      }
      const verdict = verdictFromLines(lines, rules, context, (l) => derived.get(l) ?? l);
      if (verdict === undefined) return undefined;
      return failed ? verdict : { ...verdict, confidence: 'weak' };
    },
    isRetryLine: (line) => RETRY_LINE.test(line),
  });
}
