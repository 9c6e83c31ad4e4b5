import type { TerminalEvidence } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { geminiCliUsage } from './usage.js';

const evidence = (lastEvent: Record<string, unknown>) =>
  ({ agent: 'gemini-cli', outputFormat: 'jsonl', lastEvent }) as TerminalEvidence;

describe('geminiCliUsage', () => {
  it('reads stats of the final result event', () => {
    expect(
      geminiCliUsage(
        evidence({
          type: 'result',
          status: 'success',
          stats: { total_tokens: 1500, input_tokens: 1200, output_tokens: 300, cached: 0 },
        }),
      ),
    ).toEqual({ inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, totalTokens: 1500 });
    expect(geminiCliUsage(evidence({ type: 'result', stats: { total_tokens: 15 } }))).toEqual({
      totalTokens: 15,
    });
  });
});
