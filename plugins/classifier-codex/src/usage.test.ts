import type { TerminalEvidence } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { codexUsage } from './usage.js';

const evidence = (lastEvent: Record<string, unknown>) =>
  ({ agent: 'codex', outputFormat: 'jsonl', lastEvent }) as TerminalEvidence;

describe('codexUsage', () => {
  it('splits cached input out of turn.completed input_tokens (no price: codex reports none)', () => {
    expect(
      codexUsage(
        evidence({
          type: 'turn.completed',
          usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 50 },
        }),
      ),
    ).toEqual({ inputTokens: 200, cacheReadTokens: 800, outputTokens: 50 });
    expect(codexUsage(evidence({ type: 'turn.failed' }))).toBeUndefined();
  });
});
