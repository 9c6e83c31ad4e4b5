import type { AttemptUsage, TerminalEvidence } from '@switchyard/core';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Token counts from Gemini CLI's final `result` event (`--output-format stream-json`):
 * `stats.{input_tokens, output_tokens, cached, total_tokens}`. Gemini reports no price.
 */
export function geminiCliUsage(evidence: TerminalEvidence): AttemptUsage | undefined {
  const last = evidence.lastEvent;
  if (last?.type !== 'result' || typeof last.stats !== 'object' || last.stats === null)
    return undefined;
  const stats = last.stats as Record<string, unknown>;
  const out: AttemptUsage = {};
  const put = (key: keyof AttemptUsage, value: unknown) => {
    const n = count(value);
    if (n !== undefined) (out as Record<string, number>)[key] = n;
  };
  put('inputTokens', stats.input_tokens);
  put('outputTokens', stats.output_tokens);
  put('cacheReadTokens', stats.cached);
  put('totalTokens', stats.total_tokens);
  return Object.keys(out).length > 0 ? out : undefined;
}
