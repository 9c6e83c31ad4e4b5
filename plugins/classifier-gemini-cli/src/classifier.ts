import {
  type AgentClassifierSpec,
  type ClassifierOptions,
  createAgentClassifier,
  eventAndStderrCandidates,
  finalEventSuccess,
  STDIN_PROMPT_NOTE,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

// Text mode: "Error when talking to Gemini API Full report available at: … <Name>Error: <message>",
// then a Node dump of the error whose `status:`/`code:` keys carry the HTTP status.
const ERROR_LINE = /^(?:Error when talking to Gemini API\b|\[API Error\b)/;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-gemini-cli',
  version: '0.0.0',
  agents: ['gemini-cli'],
  verifiedVersions: ['0.61.x'],
  // `--prompt`: "Prompt. Appended to input on stdin (if any)." It takes a value, so the
  // element becomes a short line appended after the prompt read from stdin.
  promptInput: { stdin: { argvPrompt: STDIN_PROMPT_NOTE } },
  errorLine: ERROR_LINE,
  // "Attempt 1 failed: ... Retrying after 5128ms..." / "Attempt 1 failed. Retrying with backoff..."
  retryLine: /Retrying (?:after \d+ms|with backoff)/,
  success: finalEventSuccess((last) => last.type === 'result' && last.status === 'success'),
  // stream-json/json: {"type":"result","status":"error","error":{"type":..,"message":"[API Error: ..]"}}
  candidates: eventAndStderrCandidates(ERROR_LINE),
};

/** Classifier for Gemini CLI (`gemini -p`, text, json or stream-json). */
export function geminiCliClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
