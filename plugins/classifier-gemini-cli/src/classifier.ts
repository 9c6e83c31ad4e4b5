import {
  type AgentClassifierSpec,
  type ClassifierOptions,
  createAgentClassifier,
  eventAndStderrCandidates,
  finalEventSuccess,
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
  success: finalEventSuccess((last) => last.type === 'result' && last.status === 'success'),
  // stream-json/json: {"type":"result","status":"error","error":{"type":..,"message":"[API Error: ..]"}}
  candidates: eventAndStderrCandidates(NOTICE),
};

/** Classifier for Gemini CLI (`gemini -p`, text, json or stream-json). */
export function geminiCliClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
