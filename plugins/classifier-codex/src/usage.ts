import type { AttemptUsage, TerminalEvidence } from '@switchyard/core';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * Token counts from Codex's final `turn.completed` event (`exec --json`):
 * `usage.{input_tokens, cached_input_tokens, output_tokens}`. Codex reports no price, so a
 * cost comes from the config's price table (marked as an estimate). `input_tokens` includes
 * the cached ones; they are split out so each kind is priced once.
 */
export function codexUsage(evidence: TerminalEvidence): AttemptUsage | undefined {
  const last = evidence.lastEvent;
  if (last?.type !== 'turn.completed' || typeof last.usage !== 'object' || last.usage === null)
    return undefined;
  const usage = last.usage as Record<string, unknown>;
  const input = count(usage.input_tokens);
  const cached = count(usage.cached_input_tokens) ?? 0;
  const output = count(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  return {
    ...(input !== undefined ? { inputTokens: Math.max(0, input - cached) } : {}),
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
  };
}
