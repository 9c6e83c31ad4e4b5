import type { Classification, FailureClass, FailureReason } from '@switchyard/core';

/** One provider-fault rule: a pattern over a terminal line and the class it means. */
export interface FaultRule {
  class: FailureClass;
  confidence: Classification['confidence'];
  pattern: RegExp;
  /** Short name, for docs and tests. */
  name: string;
  /** The verdict's `reason`, when the rule knows more than the class. */
  reason?: FailureReason;
}

/**
 * Provider faults as agent CLIs print them, in priority order (first rule that matches any
 * candidate line wins). Derived from the recorded outputs of Claude Code, Codex, Gemini CLI
 * and Qwen Code against the mock provider (test/agent-contract/fixtures).
 */
export const PROVIDER_RULES: readonly FaultRule[] = [
  {
    name: 'context-window',
    class: 'context-limit',
    confidence: 'certain',
    pattern:
      /prompt is too long|context[ _-]?(?:window|length)|maximum context|context_length_exceeded|exceeds the maximum number of tokens|input token count|ran out of room|too many tokens/i,
  },
  {
    name: 'auth',
    class: 'generic-error',
    reason: 'authentication',
    confidence: 'certain',
    pattern:
      /\b401\b|\b403 forbidden\b|\bunauthori[sz]ed\b|invalid[ _-]?(?:api[ _-]?key|x-api-key)|incorrect api key|authentication[ _](?:error|failed)|UNAUTHENTICATED|API key not valid/i,
  },
  {
    name: 'rate-limit',
    class: 'provider-quota',
    confidence: 'certain',
    pattern:
      /\b429\b|rate[ _-]?limit|\bquota\b|too many requests|RESOURCE_EXHAUSTED|usage limit|limit reached/i,
  },
  {
    name: 'model-not-found',
    class: 'model-unavailable',
    confidence: 'certain',
    pattern:
      /model[^\n]{0,80}?(?:does not exist|is not found|not supported)|model_not_found|ModelNotFound|issue with the selected model|not_found_error|\b404\b[^.]{0,40}model/i,
  },
  {
    name: 'overloaded',
    class: 'model-unavailable',
    confidence: 'likely',
    pattern: /\b529\b|overloaded|at capacity|\b503\b|\bUNAVAILABLE\b/i,
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
      /ECONNREFUSED|connection refused|fetch failed|connection error|ENOTFOUND|EAI_AGAIN|waiting for network|connection failed|ETIMEDOUT|ECONNABORTED|request timed out/i,
  },
  {
    name: 'server-error',
    class: 'provider-connection',
    confidence: 'likely',
    pattern: /\b50[0-4]\b|internal server error|server_error|high demand|api_error/i,
  },
  {
    // gRPC status names are upper case; case-insensitively they match `node:internal/...`.
    name: 'server-error-status',
    class: 'provider-connection',
    confidence: 'likely',
    pattern: /\bINTERNAL\b/,
  },
];

/** A JavaScript stack frame (`    at fn (file:12:34)`): its numbers are never HTTP statuses. */
const STACK_FRAME = /^\s*at\s.*:\d+(?::\d+)?\)?\s*$/;

/** The first rule (in priority order) matching any line, with the newest matching line. */
export function matchRules(
  lines: readonly string[],
  rules: readonly FaultRule[],
): { rule: FaultRule; line: string } | undefined {
  for (const rule of rules) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (!STACK_FRAME.test(line) && rule.pattern.test(line)) return { rule, line };
    }
  }
  return undefined;
}
