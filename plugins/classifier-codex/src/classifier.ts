import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
  eventText,
  finalEventSuccess,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

const RECONNECT = /Reconnecting\.\.\./;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-codex',
  version: '0.0.0',
  agents: ['codex'],
  // {"type":"error","message":"Reconnecting... 1/1 (...)"} and, in text mode, "ERROR: Reconnecting..."
  retryLine: RECONNECT,
  success: finalEventSuccess((last) => last.type === 'turn.completed'),
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    // `turn.failed` and `error` events; "Reconnecting..." events only announce a retry.
    for (const e of evidence.terminalEvents) {
      const text = eventText(e.event);
      if (!RECONNECT.test(text)) out.push({ match: text, line: e.raw });
    }
    if (evidence.exitCode !== 0) {
      for (const line of evidence.stderrTail.slice(-stderrLines)) {
        if (/^ERROR: /.test(line) && !RECONNECT.test(line)) out.push({ match: line, line });
      }
    }
    return out;
  },
};

/** Classifier for Codex (`codex exec`, text or `--json`). */
export function codexClassifier(options?: ClassifierOptions): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
