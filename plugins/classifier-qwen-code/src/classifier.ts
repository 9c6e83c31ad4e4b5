import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
  eventText,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

const NOTICE = /^Ripgrep not available/;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-qwen-code',
  version: '0.0.0',
  agents: ['qwen-code'],
  // stderr "Retrying in 60s (attempt 1/1): [API Error: 429 ...]", "Retrying provider attempt (...)",
  // stream-json {"type":"system","subtype":"retry",...}
  retryLine: /^Retrying in \d+s \(attempt|^Retrying provider attempt|"subtype"\s*:\s*"retry"/,
  success(evidence) {
    if (evidence.outputFormat === 'text') return undefined;
    const last = evidence.lastEvent;
    return last?.type === 'result' && last.is_error === false
      ? evidence.stdoutTail.at(-1)
      : undefined;
  },
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    // {"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: ..]"}}
    for (const e of evidence.terminalEvents) out.push({ match: eventText(e.event), line: e.raw });
    if (evidence.exitCode !== 0) {
      for (const line of evidence.stderrTail.slice(-stderrLines)) {
        if (!NOTICE.test(line)) out.push({ match: line, line });
      }
    }
    return out;
  },
};

/** Classifier for Qwen Code (`qwen -p`, text or stream-json). */
export function qwenCodeClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
