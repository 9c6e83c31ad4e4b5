import {
  type Classification,
  type ClassifyContext,
  isFailoverClass,
  type TerminalEvidence,
} from '@switchyard/core';
import { findRetryAfter } from '@switchyard/runner-kit';
import { type FaultRule, matchRules } from './rules.js';

/**
 * Classifies by the newest candidate line a rule matches. `evidenceLine` maps the matched
 * (possibly derived) line back to the exact line the CLI printed. `retryAfter` is filled when
 * a failover class's error lines name a reset time (a CLI's own backoff — "Retrying in 60s" —
 * is not one).
 */
export function verdictFromLines(
  lines: readonly string[],
  rules: readonly FaultRule[],
  context: ClassifyContext,
  evidenceLine: (line: string) => string = (line) => line,
): Classification | undefined {
  const hit = matchRules(lines, rules);
  if (hit === undefined) return undefined;
  const verdict: Classification = {
    class: hit.rule.class,
    confidence: hit.rule.confidence,
    evidence: [evidenceLine(hit.line)],
  };
  if (hit.rule.reason !== undefined) verdict.reason = hit.rule.reason;
  if (isFailoverClass(hit.rule.class)) {
    const at = findRetryAfter([hit.line, ...[...lines].reverse()], context);
    if (at !== undefined) verdict.retryAfter = at;
  }
  return verdict;
}

/**
 * For attempts the dispatcher ended or a signal killed. A retry loop is classified by what its
 * retry lines say (e.g. `provider-connection`), so failover is not delayed; otherwise it is a
 * process termination.
 */
export function terminationVerdict(
  evidence: TerminalEvidence,
  rules: readonly FaultRule[],
  context: ClassifyContext,
): Classification | undefined {
  const retryLoop =
    evidence.endedBy === 'retry-loop' ||
    (evidence.endedBy === undefined && evidence.signal !== null && evidence.retryLines.length > 0);
  if (retryLoop) {
    const fromRetries = verdictFromLines(evidence.retryLines, rules, context);
    if (fromRetries !== undefined) return { ...fromRetries, confidence: 'likely' };
  }
  if (evidence.endedBy !== undefined || evidence.signal !== null) {
    const why = evidence.endedBy ?? `signal ${evidence.signal}`;
    const last = evidence.retryLines.at(-1) ?? evidence.stderrTail.at(-1);
    return {
      class: 'process-termination',
      confidence: 'certain',
      evidence: last === undefined ? [`ended by ${why}`] : [`ended by ${why}`, last],
    };
  }
  return undefined;
}

const STATUS_KEY = /^(?:status|code|statusCode|status_code|error_status|api_error_status)$/;

/**
 * String fields of a JSON event that carry an error's meaning (not the whole line). A numeric
 * status field is written `status: NNN`, the form rules read statuses from; other numbers
 * (token counts, durations) are left out.
 */
export function eventText(event: Record<string, unknown>): string {
  const parts: string[] = [];
  const take = (obj: Record<string, unknown>, depth: number) => {
    for (const [key, value] of Object.entries(obj)) {
      if (typeof value === 'number') {
        if (STATUS_KEY.test(key)) parts.push(`status: ${value}`);
      } else if (typeof value === 'string') {
        // `result` is the run's final answer in stream-json shapes: prose, unless the CLI
        // put its API error there.
        if (key === 'result' && !/^\s*\[?API Error\b/.test(value)) continue;
        if (
          /^(?:type|subtype|message|error|errorType|result|status|code|reason|terminal_reason|api_error\w*|detail)$/i.test(
            key,
          )
        ) {
          parts.push(String(value));
        }
      } else if (
        depth < 2 &&
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        /^(?:error|data|cause)$/i.test(key)
      ) {
        take(value as Record<string, unknown>, depth + 1);
      }
    }
  };
  take(event, 0);
  return parts.join(' | ');
}
