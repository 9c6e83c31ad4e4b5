import type { TerminalEvent, TerminalEvidence } from '@switchyard/core';

/** Inputs of {@link buildTerminalEvidence}; tails and events default to empty. */
export interface TerminalEvidenceInput {
  agent: string;
  outputFormat: 'text' | 'jsonl';
  exitCode: number | null;
  signal?: string | null;
  stdoutTail?: readonly string[];
  stderrTail?: readonly string[];
  terminalEvents?: readonly TerminalEvent[];
  lastEvent?: Record<string, unknown>;
  retryLines?: readonly string[];
  endedBy?: TerminalEvidence['endedBy'];
  agentVersion?: string;
}

/** Assembles the evidence classifiers see, with copies of the arrays so later writes don't leak in. */
export function buildTerminalEvidence(input: TerminalEvidenceInput): TerminalEvidence {
  const evidence: TerminalEvidence = {
    agent: input.agent,
    outputFormat: input.outputFormat,
    exitCode: input.exitCode,
    signal: input.signal ?? null,
    stdoutTail: [...(input.stdoutTail ?? [])],
    stderrTail: [...(input.stderrTail ?? [])],
    terminalEvents: [...(input.terminalEvents ?? [])],
    retryLines: [...(input.retryLines ?? [])],
  };
  if (input.lastEvent !== undefined) evidence.lastEvent = input.lastEvent;
  if (input.endedBy !== undefined) evidence.endedBy = input.endedBy;
  if (input.agentVersion !== undefined) evidence.agentVersion = input.agentVersion;
  return evidence;
}
