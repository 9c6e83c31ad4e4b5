import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
  errorLineCandidates,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin, TerminalEvidence } from '@switchyard/core';

// How Claude Code prints its own errors as text (text mode: the last stdout line):
// "API Error: 429 …", "API Error: Unable to connect to API (ConnectionRefused)" (2.1.19x),
// "API Error: Connection refused … (ECONNREFUSED)" (2.1.33x), "Prompt is too long · …",
// "Invalid API key · …", "There's an issue with the selected model (…)".
const ERROR_LINE =
  /^(?:API Error\b|Prompt is too long\b|Invalid API key\b|There's an issue with the selected model\b|Credit balance is too low\b|Claude AI usage limit reached\b|OAuth token has expired\b)/;

function resultEvent(evidence: TerminalEvidence) {
  const last = evidence.lastEvent;
  return last?.type === 'result' ? last : undefined;
}

/** The final `result` event's meaning: its text plus the API error fields Claude Code sets. */
function resultText(event: Record<string, unknown>): string {
  // `result` is the final assistant text: it counts only in the CLI's own error form.
  const result = typeof event.result === 'string' && ERROR_LINE.test(event.result);
  const keys = [
    ...(result ? ['result'] : []),
    'api_error_status',
    'api_error_type',
    'api_error',
    'terminal_reason',
    'subtype',
  ];
  return keys
    .map((k) => event[k])
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .map((v) => (typeof v === 'number' ? `status: ${v}` : v))
    .join(' | ');
}

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-claude-code',
  version: '0.0.0',
  agents: ['claude-code'],
  verifiedVersions: ['2.1.19x', '2.1.33x'],
  // `claude -p` with no prompt argument reads the prompt from stdin (`cat prompt.md | claude
  // -p`); `-p` is the boolean --print flag, so the `{prompt}` element is dropped.
  promptInput: { stdin: { argvPrompt: null } },
  errorLine: ERROR_LINE,
  // stream-json: {"type":"system","subtype":"api_retry","attempt":1,"error_status":429,...}
  retryLine: /"subtype"\s*:\s*"api_retry"/,
  success(evidence) {
    if (evidence.outputFormat === 'text') return undefined; // nothing terminal to quote
    const result = resultEvent(evidence);
    return result?.is_error === false ? evidence.stdoutTail.at(-1) : undefined;
  },
  candidates(evidence, stderrLines): Candidate[] {
    const out: Candidate[] = [];
    const result = resultEvent(evidence);
    if (result !== undefined && result.is_error === true) {
      const raw = evidence.terminalEvents.findLast((e) => e.event.type === 'result')?.raw;
      out.push({
        match: resultText(result),
        line: raw ?? evidence.stdoutTail.at(-1) ?? '',
        source: 'event',
      });
    }
    if (evidence.exitCode !== 0) {
      out.push(...errorLineCandidates(evidence.stderrTail.slice(-stderrLines), ERROR_LINE));
      // text mode prints the final API error as the last stdout line(s)
      if (evidence.outputFormat === 'text') {
        out.push(...errorLineCandidates(evidence.stdoutTail.slice(-3), ERROR_LINE));
      }
    }
    return out;
  },
};

/** Classifier for Claude Code (`claude -p`, text or `--output-format stream-json`). */
export function claudeCodeClassifier(
  options?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  return createAgentClassifier(spec, options);
}
