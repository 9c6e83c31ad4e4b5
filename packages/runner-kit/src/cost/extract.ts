import {
  type AttemptUsage,
  attemptUsageSchema,
  type ClassifierPlugin,
  type TerminalEvidence,
} from '@switchyard/core';
import { tokensOf } from './price.js';

/**
 * The usage an attempt's agent reported, from the first classifier of its chain whose
 * `usage` hook recognises the evidence. A hook that throws or returns nonsense is ignored:
 * accounting never fails an attempt.
 */
export function extractUsage(
  evidence: TerminalEvidence,
  classifiers: readonly ClassifierPlugin[],
): AttemptUsage | undefined {
  for (const plugin of classifiers) {
    if (!plugin.usage) continue;
    try {
      const parsed = attemptUsageSchema.safeParse(plugin.usage(evidence));
      if (parsed.success && (tokensOf(parsed.data) > 0 || parsed.data.costUsd !== undefined))
        return parsed.data;
    } catch {
      // a broken hook loses only the figures
    }
  }
  return undefined;
}
