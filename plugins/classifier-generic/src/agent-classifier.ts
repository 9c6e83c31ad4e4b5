import {
  type Classification,
  type ClassifierPlugin,
  defineClassifier,
  type TerminalEvidence,
} from '@switchyard/core';
import { type ClassifierOptions, parseClassifierOptions } from './options.js';
import { type FaultRule, PROVIDER_RULES } from './rules.js';
import { eventText, terminationVerdict, verdictFromLines } from './verdict.js';

/** A terminal line to match (`match`, may be derived) and the exact line it came from. */
export interface Candidate {
  match: string;
  line: string;
}

/** What an agent-specific classifier knows about its CLI's output. */
export interface AgentClassifierSpec {
  name: string;
  version: string;
  agents: readonly string[];
  /** The CLI's terminal error lines, only from terminal places (final event, error lines). */
  candidates(evidence: TerminalEvidence, stderrLines: number): Candidate[];
  /** The exact line proving a clean finish, when the CLI says so. */
  success(evidence: TerminalEvidence): string | undefined;
  /** Lines that only announce an internal retry of the CLI. */
  retryLine: RegExp;
  /** Agent-specific rules, checked before the shared provider rules. */
  rules?: readonly FaultRule[];
}

/**
 * `success` for CLIs that end a clean JSON run with a final event saying so: quotes the last
 * stdout line when `isClean(lastEvent)`. Text mode has nothing terminal to quote.
 */
export function finalEventSuccess(
  isClean: (event: Record<string, unknown>) => boolean,
): AgentClassifierSpec['success'] {
  return (evidence) => {
    if (evidence.outputFormat === 'text') return undefined;
    const last = evidence.lastEvent;
    return last !== undefined && isClean(last) ? evidence.stdoutTail.at(-1) : undefined;
  };
}

/**
 * `candidates` for CLIs that report errors in terminal JSON events and, on a failed exit, on
 * stderr: every terminal event, then the stderr tail minus `notice` lines (startup chatter).
 */
export function eventAndStderrCandidates(notice: RegExp): AgentClassifierSpec['candidates'] {
  return (evidence, stderrLines) => {
    const out: Candidate[] = evidence.terminalEvents.map((e) => ({
      match: eventText(e.event),
      line: e.raw,
    }));
    if (evidence.exitCode !== 0) {
      for (const line of evidence.stderrTail.slice(-stderrLines)) {
        if (!notice.test(line)) out.push({ match: line, line });
      }
    }
    return out;
  };
}

/** Stack frames and blank lines are never evidence. */
export function isNoise(line: string): boolean {
  return line.trim() === '' || /^\s+at\s/.test(line);
}

/** Builds an agent classifier: termination, success marker, then rules over terminal lines. */
export function createAgentClassifier(
  spec: AgentClassifierSpec,
  raw?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  const { options, extraRules } = parseClassifierOptions(spec.name, raw);
  const rules = [...extraRules, ...(spec.rules ?? []), ...PROVIDER_RULES];
  const stderrLines = options.stderrLines ?? 40;
  return defineClassifier({
    meta: { name: spec.name, version: spec.version },
    agents: spec.agents,
    options,
    classify(evidence, context): Classification | undefined {
      const ended = terminationVerdict(evidence, rules, context);
      if (ended !== undefined) return ended;
      if (evidence.exitCode === 0) {
        const ok = spec.success(evidence);
        if (ok !== undefined) return { class: 'success', confidence: 'certain', evidence: [ok] };
      }
      const candidates = spec.candidates(evidence, stderrLines).filter((c) => !isNoise(c.match));
      if (candidates.length === 0) return undefined;
      const byMatch = new Map(candidates.map((c) => [c.match, c.line]));
      const verdict = verdictFromLines(
        [...byMatch.keys()],
        rules,
        context,
        (m) => byMatch.get(m) ?? m,
      );
      if (verdict !== undefined) return verdict;
      if (evidence.exitCode === 0) return undefined;
      return { class: 'generic-error', confidence: 'likely', evidence: [candidates.at(-1)!.line] };
    },
    isRetryLine: (line) => spec.retryLine.test(line),
  });
}
