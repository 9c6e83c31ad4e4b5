import type { Classification, FailureClass, FailureReason } from '@switchyard/core';
import { httpStatusesIn } from '@switchyard/runner-kit';

/**
 * One provider-fault rule over a terminal error line: a phrase the CLI or provider prints,
 * and/or HTTP statuses (read only where the line's syntax carries one, see `httpStatusesIn`).
 */
export interface FaultRule {
  class: FailureClass;
  confidence: Classification['confidence'];
  /** Phrase of an error message, e.g. "prompt is too long". */
  pattern?: RegExp;
  /** HTTP statuses that mean this fault. */
  statuses?: readonly number[];
  /** A status alone is not enough: the line must also match this (404 + "model"). */
  statusNeeds?: RegExp;
  /** Short name, for docs and tests. */
  name: string;
  /** The verdict's `reason`, when the rule knows more than the class. */
  reason?: FailureReason;
}

/**
 * Provider faults as agent CLIs print them, in priority order (the first rule matching the
 * newest error line wins). Derived from the recorded outputs of Claude Code, Codex, Gemini
 * CLI, Qwen Code and Copilot against the mock provider (test/agent-contract/fixtures). These
 * rules only ever see terminal error lines (see `createAgentClassifier`): prose never reaches
 * them, so phrases may be plain words.
 */
export const PROVIDER_RULES: readonly FaultRule[] = [
  {
    name: 'context-window',
    class: 'context-limit',
    confidence: 'certain',
    pattern:
      /prompt (?:is|as) too long|context[ _-]?(?:window|length)|maximum context|context_length_exceeded|exceeds the maximum number of tokens|input token count|ran out of room|too many tokens/i,
  },
  {
    // Authentication has no class of its own: not a provider fault, never failover.
    name: 'auth',
    class: 'generic-error',
    reason: 'authentication',
    confidence: 'certain',
    statuses: [401, 403],
    pattern:
      /\bunauthori[sz]ed\b|invalid[ _-]?(?:api[ _-]?key|x-api-key)|incorrect api key|authentication[ _](?:error|failed)|UNAUTHENTICATED|PERMISSION_DENIED|API key not valid/i,
  },
  {
    name: 'rate-limit',
    class: 'provider-quota',
    confidence: 'certain',
    statuses: [429],
    pattern:
      /rate[ _-]?limit|\bquota\b|too many requests|RESOURCE_EXHAUSTED|usage limit|limit reached/i,
  },
  {
    name: 'model-not-found',
    class: 'model-unavailable',
    confidence: 'certain',
    statuses: [404],
    statusNeeds: /model/i,
    pattern:
      /model[^\n]{0,80}?(?:does not exist|is not found|not found on|not supported)|model_not_found|ModelNotFound|issue with the selected model|not_found_error/i,
  },
  {
    name: 'overloaded',
    class: 'model-unavailable',
    confidence: 'likely',
    statuses: [529, 503],
    pattern: /overloaded|at capacity|\bUNAVAILABLE\b/i,
  },
  {
    name: 'stream-cut',
    class: 'provider-stream-disconnect',
    confidence: 'certain',
    pattern:
      /stream disconnected|ECONNRESET|connection (?:to the api )?was lost|API Error: terminated|TypeError: terminated|other side closed|UND_ERR_SOCKET|premature close|error decoding response body|socket hang up/i,
  },
  {
    name: 'connection',
    class: 'provider-connection',
    confidence: 'certain',
    pattern:
      /ECONNREFUSED|connection ?refused|fetch failed|connection error|ENOTFOUND|EAI_AGAIN|waiting for network|connection failed|unable to connect|could not connect|ETIMEDOUT|ECONNABORTED|request timed out/i,
  },
  {
    // HTTP 500/502/504 after the CLI's own retries: the provider is failing now, so the
    // stage fails over (provider-connection), the same for every CLI.
    name: 'server-error',
    class: 'provider-connection',
    confidence: 'likely',
    statuses: [500, 502, 504],
    pattern: /internal server error|server_error|high demand|\bapi_error\b/i,
  },
  {
    // gRPC status names are upper case; case-insensitively they match `node:internal/...`.
    name: 'server-error-status',
    class: 'provider-connection',
    confidence: 'likely',
    pattern: /\bINTERNAL\b/,
  },
];

/** True when `rule` matches one error line (its statuses already read from it). */
export function ruleMatches(rule: FaultRule, line: string, statuses: readonly number[]): boolean {
  if (rule.pattern?.test(line)) return true;
  if (rule.statuses === undefined || !statuses.some((s) => rule.statuses!.includes(s))) {
    return false;
  }
  return rule.statusNeeds === undefined || rule.statusNeeds.test(line);
}

/**
 * The newest line that any rule matches, with the first rule (in priority order) matching it:
 * a run's last error decides, not the first retry it printed.
 */
export function matchRules(
  lines: readonly string[],
  rules: readonly FaultRule[],
): { rule: FaultRule; line: string } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const statuses = httpStatusesIn(line);
    const rule = rules.find((r) => ruleMatches(r, line, statuses));
    if (rule !== undefined) return { rule, line };
  }
  return undefined;
}
