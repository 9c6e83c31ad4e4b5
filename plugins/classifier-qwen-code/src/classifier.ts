import {
  type AgentClassifierSpec,
  type ClassifierOptions,
  createAgentClassifier,
  eventAndStderrCandidates,
  finalEventSuccess,
  STDIN_PROMPT_NOTE,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin } from '@switchyard/core';

// Qwen Code prints API errors as "[API Error: 429 …]" on stderr (text), and in the final
// `result` event. 0.15.x ends such a run with exit 0 and `"subtype":"success","is_error":false`:
// the `[API Error: …]` text of the result — the whole result, or appended to a reply the
// stream cut short ("Hello from the mock [API Error: terminated …]") — is then the only sign.
const ERROR_LINE = /^\[API Error\b/;
const RESULT_API_ERROR = /^\s*(\[API Error:[^\n]*\])|(\[API Error:[^\n]*\])\s*$/;

function apiErrorResult(event: Record<string, unknown> | undefined): string | undefined {
  if (event?.type !== 'result' || typeof event.result !== 'string') return undefined;
  const m = RESULT_API_ERROR.exec(event.result);
  return m === null ? undefined : (m[1] ?? m[2]);
}

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-qwen-code',
  version: '0.0.0',
  agents: ['qwen-code'],
  verifiedVersions: ['0.15.x', '0.24.x'],
  // A Gemini CLI fork: `--prompt` is "Appended to input on stdin (if any)", so the element
  // becomes a short line appended after the prompt read from stdin.
  promptInput: { stdin: { argvPrompt: STDIN_PROMPT_NOTE } },
  errorLine: ERROR_LINE,
  // stderr "Retrying in 60s (attempt 1/1): [API Error: 429 ...]", "Retrying provider attempt (...)",
  // stream-json {"type":"system","subtype":"retry",...}
  retryLine: /^Retrying in \d+s \(attempt|^Retrying provider attempt|"subtype"\s*:\s*"retry"/,
  success: finalEventSuccess(
    (last) =>
      last.type === 'result' && last.is_error === false && apiErrorResult(last) === undefined,
  ),
  // {"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: ..]"}}
  candidates(evidence, stderrLines) {
    const out = eventAndStderrCandidates(ERROR_LINE)(evidence, stderrLines);
    const hidden = apiErrorResult(evidence.lastEvent);
    if (hidden !== undefined && evidence.lastEvent?.is_error !== true) {
      const raw = evidence.stdoutTail.findLast((l) => l.includes('"type":"result"'));
      out.push({ match: hidden, line: raw ?? hidden, source: 'event' });
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
