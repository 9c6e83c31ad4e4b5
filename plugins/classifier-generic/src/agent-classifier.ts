import {
  type AgentPromptInput,
  type Classification,
  type ClassifierPlugin,
  defineClassifier,
  type TerminalEvidence,
} from '@switchyard/core';
import { type Candidate, errorLineCandidates, isErrorEvidence } from './error-lines.js';
import { type ClassifierOptions, parseClassifierOptions } from './options.js';
import { type FaultRule, PROVIDER_RULES } from './rules.js';
import { eventText, terminationVerdict, verdictFromLines } from './verdict.js';

/**
 * The `--prompt` value of a CLI that appends it to the prompt it reads from stdin (Gemini CLI,
 * Qwen Code), when the prompt itself goes on stdin.
 */
export const STDIN_PROMPT_NOTE = 'Follow the instructions above.';

/** What an agent-specific classifier knows about its CLI's output. */
export interface AgentClassifierSpec {
  name: string;
  version: string;
  agents: readonly string[];
  /**
   * The CLI release lines these rules were verified on, e.g. `['2.1.19x', '2.1.33x']`
   * (`x` = any digits). A CLI outside them gets a warning in the dry run.
   */
  verifiedVersions?: readonly string[];
  /**
   * The forms in which this CLI prints its own API errors as text (`API Error: …`,
   * `ERROR: …`). Only text lines matching it are evidence: prose never is.
   */
  errorLine: RegExp;
  /** The CLI's terminal errors: error events, and text lines (gated by `errorLine`). */
  candidates(evidence: TerminalEvidence, stderrLines: number): Candidate[];
  /** The exact line proving a clean finish, when the CLI says so. */
  success(evidence: TerminalEvidence): string | undefined;
  /** Lines that only announce an internal retry of the CLI. */
  retryLine: RegExp;
  /** Agent-specific rules, checked before the shared provider rules. */
  rules?: readonly FaultRule[];
  /** How the CLI takes a prompt too long for argv (see `AgentPromptInput` in core); unset:
   * argv only, and such a prompt is refused before spawning. */
  promptInput?: AgentPromptInput;
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

/** Every terminal (error) event as a candidate, newest last. */
export function eventCandidates(evidence: TerminalEvidence): Candidate[] {
  return evidence.terminalEvents.map((e) => ({
    match: eventText(e.event),
    line: e.raw,
    source: 'event' as const,
  }));
}

/**
 * `candidates` for CLIs that report errors in terminal JSON events and, on a failed exit, as
 * error lines on stderr: every terminal event, then the stderr tail's error lines.
 */
export function eventAndStderrCandidates(errorLine: RegExp): AgentClassifierSpec['candidates'] {
  return (evidence, stderrLines) => {
    const out = eventCandidates(evidence);
    if (evidence.exitCode !== 0) {
      out.push(...errorLineCandidates(evidence.stderrTail.slice(-stderrLines), errorLine));
    }
    return out;
  };
}

/** Builds an agent classifier: termination, success marker, then rules over terminal errors. */
export function createAgentClassifier(
  spec: AgentClassifierSpec,
  raw?: ClassifierOptions,
): ClassifierPlugin<ClassifierOptions> {
  const { options, extraRules } = parseClassifierOptions(spec.name, raw);
  const rules = [...(spec.rules ?? []), ...PROVIDER_RULES];
  const stderrLines = options.stderrLines ?? 40;
  return defineClassifier({
    meta: { name: spec.name, version: spec.version },
    agents: spec.agents,
    ...(spec.verifiedVersions === undefined ? {} : { verifiedVersions: spec.verifiedVersions }),
    ...(spec.promptInput === undefined ? {} : { promptInput: spec.promptInput }),
    options,
    classify(evidence, context): Classification | undefined {
      const ended = terminationVerdict(evidence, [...extraRules, ...rules], context);
      if (ended !== undefined) return ended;
      if (evidence.exitCode === 0) {
        const ok = spec.success(evidence);
        if (ok !== undefined) return { class: 'success', confidence: 'certain', evidence: [ok] };
      }
      const all = spec.candidates(evidence, stderrLines);
      // The user's own extra rules may name any terminal line (a proxy's message); the
      // built-in ones only ever see error evidence.
      if (extraRules.length > 0 && evidence.exitCode !== 0) {
        const lines = [...evidence.stderrTail.slice(-stderrLines), ...all.map((c) => c.line)];
        const extra = verdictFromLines(lines, extraRules, context);
        if (extra !== undefined) return extra;
      }
      const candidates = all.filter((c) => isErrorEvidence(c, spec.errorLine));
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
