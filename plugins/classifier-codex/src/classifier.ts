import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
  errorLineCandidates,
  eventText,
  finalEventSuccess,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

const RECONNECT = /Reconnecting\.\.\./;
// Text mode prints each error once as "ERROR: <message>" on stderr.
const ERROR_LINE = /^ERROR: /;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-codex',
  version: '0.0.0',
  agents: ['codex'],
  verifiedVersions: ['0.17x'],
  // `codex exec [PROMPT]`: "If not provided as an argument (or if `-` is used), instructions
  // are read from stdin."
  promptInput: { stdin: { argvPrompt: '-' } },
  errorLine: ERROR_LINE,
  // {"type":"error","message":"Reconnecting... 1/1 (...)"} and, in text mode, "ERROR: Reconnecting..."
  retryLine: RECONNECT,
  success: finalEventSuccess((last) => last.type === 'turn.completed'),
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    // `turn.failed` and `error` events; "Reconnecting..." events only announce a retry.
    for (const e of evidence.terminalEvents) {
      const text = eventText(e.event);
      if (!RECONNECT.test(text)) out.push({ match: text, line: e.raw, source: 'event' });
    }
    if (evidence.exitCode !== 0) {
      const lines = evidence.stderrTail.slice(-stderrLines).filter((l) => !RECONNECT.test(l));
      out.push(...errorLineCandidates(lines, ERROR_LINE));
    }
    return out;
  },
};

/** Classifier for Codex (`codex exec`, text or `--json`). */
export function codexClassifier(options?: ClassifierOptions): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
