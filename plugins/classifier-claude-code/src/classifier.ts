import {
  type AgentClassifierSpec,
  type Candidate,
  type ClassifierOptions,
  createAgentClassifier,
} from '@switchyard/classifier-generic';
import type { ClassifierPlugin, TerminalEvidence } from '@switchyard/core';

function resultEvent(evidence: TerminalEvidence) {
  const last = evidence.lastEvent;
  return last?.type === 'result' ? last : undefined;
}

/** The final `result` event's meaning: its text plus the API error fields Claude Code sets. */
function resultText(event: Record<string, unknown>): string {
  const keys = [
    'result',
    'api_error_status',
    'api_error_type',
    'api_error',
    'terminal_reason',
    'subtype',
  ];
  return keys
    .map((k) => event[k])
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .join(' | ');
}

const spec: AgentClassifierSpec = {
  name: '@switchyard/classifier-claude-code',
  version: '0.0.0',
  agents: ['claude-code'],
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
      out.push({ match: resultText(result), line: raw ?? evidence.stdoutTail.at(-1) ?? '' });
    }
    if (evidence.exitCode !== 0) {
      // text mode prints the final API error as the last stdout line(s)
      if (evidence.outputFormat === 'text') {
        for (const line of evidence.stdoutTail.slice(-3)) out.push({ match: line, line });
      }
      for (const line of evidence.stderrTail.slice(-stderrLines)) out.push({ match: line, line });
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
