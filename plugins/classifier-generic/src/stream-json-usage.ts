import type { AttemptUsage, TerminalEvidence } from '@switchyard/core';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Tokens and cost from the final `result` event of the stream-json format (shared by the
 * CLIs that print it):
 * `usage.{input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}`
 * and `total_cost_usd`. Text output reports nothing.
 */
export function streamJsonResultUsage(evidence: TerminalEvidence): AttemptUsage | undefined {
  const last = evidence.lastEvent;
  if (last?.type !== 'result') return undefined;
  const usage = (typeof last.usage === 'object' && last.usage !== null ? last.usage : {}) as Record<
    string,
    unknown
  >;
  const out: AttemptUsage = {};
  const put = (key: keyof AttemptUsage, value: unknown) => {
    const n = count(value);
    if (n !== undefined) (out as Record<string, number>)[key] = n;
  };
  put('inputTokens', usage.input_tokens);
  put('outputTokens', usage.output_tokens);
  put('cacheReadTokens', usage.cache_read_input_tokens);
  put('cacheWriteTokens', usage.cache_creation_input_tokens);
  put('costUsd', last.total_cost_usd);
  return Object.keys(out).length > 0 ? out : undefined;
}
