import {
  type AgentClassifierSpec,
  type ClassifierOptions,
  createAgentClassifier,
  eventAndStderrCandidates,
  finalEventSuccess,
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
  success: finalEventSuccess((last) => last.type === 'result' && last.is_error === false),
  // {"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: ..]"}}
  candidates: eventAndStderrCandidates(NOTICE),
};

/** Classifier for Qwen Code (`qwen -p`, text or stream-json). */
export function qwenCodeClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
