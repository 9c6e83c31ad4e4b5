import type { TerminalEvidence } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { qwenCodeUsage } from './usage.js';

const evidence = (lastEvent?: Record<string, unknown>) =>
  ({
    agent: 'qwen-code',
    outputFormat: 'jsonl',
    ...(lastEvent ? { lastEvent } : {}),
  }) as TerminalEvidence;

describe('qwenCodeUsage', () => {
  it('reads usage and total_cost_usd from the final result event', () => {
    expect(
      qwenCodeUsage(
        evidence({
          type: 'result',
          total_cost_usd: 0.0421,
          usage: {
            input_tokens: 12,
            output_tokens: 345,
            cache_read_input_tokens: 6000,
            cache_creation_input_tokens: 700,
          },
        }),
      ),
    ).toEqual({
      inputTokens: 12,
      outputTokens: 345,
      cacheReadTokens: 6000,
      cacheWriteTokens: 700,
      costUsd: 0.0421,
    });
  });

  it('reports nothing for text output or a stream without a result event', () => {
    expect(qwenCodeUsage(evidence())).toBeUndefined();
    expect(qwenCodeUsage(evidence({ type: 'assistant' }))).toBeUndefined();
  });
});
