import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
  eventText,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

// Startup notices Gemini CLI prints on stderr of every run; never evidence.
const NOTICE = /^(?:Warning: |Ripgrep is not available|Loaded cached credentials|YOLO mode)/;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-gemini-cli',
  version: '0.0.0',
  agents: ['gemini-cli'],
  // "Attempt 1 failed: ... Retrying after 5128ms..." / "Attempt 1 failed. Retrying with backoff..."
  retryLine: /Retrying (?:after \d+ms|with backoff)/,
  success(evidence) {
    if (evidence.outputFormat === 'text') return undefined;
    const last = evidence.lastEvent;
    return last?.type === 'result' && last.status === 'success'
      ? evidence.stdoutTail.at(-1)
      : undefined;
  },
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    // stream-json/json: {"type":"result","status":"error","error":{"type":..,"message":"[API Error: ..]"}}
    for (const e of evidence.terminalEvents) out.push({ match: eventText(e.event), line: e.raw });
    if (evidence.exitCode !== 0) {
      for (const line of evidence.stderrTail.slice(-stderrLines)) {
        if (!NOTICE.test(line)) out.push({ match: line, line });
      }
    }
    return out;
  },
};

/** Classifier for Gemini CLI (`gemini -p`, text, json or stream-json). */
export function geminiCliClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
