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

// The final error Copilot prints on stderr (text mode), one form per fault of a BYOK provider:
// "Failed to get response from the AI model; retried 5 times (…) Last error: 429 …",
// "Could not connect to local model provider at …", "Model '…' not found on provider at … (HTTP 404).",
// "Authentication failed with provider at … (HTTP 401).", "The provider rejected the prompt as too long, …".
const ERROR_LINE =
  /^(?:Failed to get response from the AI model\b|Could not connect to (?:local )?model provider\b|Model '[^']*' not found on provider\b|Authentication failed with provider\b|The provider rejected the prompt\b)/;

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-copilot',
  version: '0.0.0',
  agents: ['copilot'],
  verifiedVersions: ['1.0.x'],
  // No promptInput: whether `copilot -p` reads a prompt from stdin is not established
  // (github/copilot-cli#683 reports stdin ignored next to -p; #1046 reports `-p ""` with stdin
  // working). Unverified here, so a prompt too long for argv is refused (SY_PROMPT_TOO_LONG).
  errorLine: ERROR_LINE,
  // json: {"type":"assistant.turn_retry",…} and {"type":"session.info","data":{"infoType":"model_retry",…}}
  retryLine: /"type"\s*:\s*"assistant\.turn_retry"|"infoType"\s*:\s*"model_retry"/,
  // json: the last event is {"type":"result","sessionId":…,"exitCode":0,…}
  success: finalEventSuccess((last) => last.type === 'result' && last.exitCode === 0),
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    // {"type":"session.error","data":{"errorType":"rate_limit","message":"…","statusCode":429}};
    // `model.call_failure` events are single attempts the CLI retried, not the outcome.
    for (const e of evidence.terminalEvents) {
      if (e.event.type === 'session.error') {
        out.push({ match: eventText(e.event), line: e.raw, source: 'event' });
      }
    }
    if (evidence.exitCode !== 0) {
      out.push(...errorLineCandidates(evidence.stderrTail.slice(-stderrLines), ERROR_LINE));
    }
    return out;
  },
};

/** Classifier for GitHub Copilot CLI (`copilot -p`, text or `--output-format json`). */
export function copilotClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
