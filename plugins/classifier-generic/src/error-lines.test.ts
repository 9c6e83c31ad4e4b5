import { buildTerminalEvidence } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import {
  type AgentClassifierSpec,
  createAgentClassifier,
  eventAndStderrCandidates,
} from './agent-classifier.js';
import { errorLineCandidates } from './error-lines.js';
import { matchRules, PROVIDER_RULES } from './rules.js';

const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };
const ERROR_LINE = /^(?:\[API Error\b|Error when talking)/;
const spec: AgentClassifierSpec = {
  name: 'test-classifier',
  version: '0.0.0',
  agents: ['test-cli'],
  errorLine: ERROR_LINE,
  retryLine: /^Retrying/,
  success: () => undefined,
  candidates: eventAndStderrCandidates(ERROR_LINE),
};
const classifier = createAgentClassifier(spec);
const failed = (stderrTail: string[]) =>
  buildTerminalEvidence({ agent: 'test-cli', outputFormat: 'text', exitCode: 1, stderrTail });

describe('error evidence', () => {
  it('reads a status from the dump under an error line, never a byte count', async () => {
    const dump = [
      'Error when talking to Gemini API Full report available at: /tmp/r.json TypeError: terminated',
      '  [cause]: SocketError: other side closed',
      "    code: 'UND_ERR_SOCKET',",
      '    socket: {',
      '      bytesWritten: 31802,',
      '      bytesRead: 429',
      '    }',
      '}',
    ];
    expect(await classifier.classify(failed(dump), ctx)).toMatchObject({
      class: 'provider-stream-disconnect',
      evidence: [dump[0]],
    });
    const quota = [
      'Error when talking to Gemini API RetryableError: x',
      '  retryDelayMs: 2000,',
      '  status: 429',
      '}',
    ];
    expect(errorLineCandidates(quota, ERROR_LINE)[0]!.match).toMatch(/\| status: 429$/);
    expect((await classifier.classify(failed(quota), ctx))?.class).toBe('provider-quota');
  });

  it('classifies the last error, not the first retry', async () => {
    const verdict = await classifier.classify(
      failed(['[API Error: 429 Rate limit reached]', '[API Error: 500 Internal server error]']),
      ctx,
    );
    expect(verdict).toMatchObject({
      class: 'provider-connection',
      evidence: ['[API Error: 500 Internal server error]'],
    });
    expect(
      matchRules(['API Error: 529 Overloaded', 'API Error: 400 prompt is too long'], PROVIDER_RULES)
        ?.rule.class,
    ).toBe('context-limit');
  });

  it('never reads prose, a test runner or a stack frame, on a failed exit', async () => {
    const prose = [
      'FAIL test/rate-limit.test.js > quota is enforced',
      'the quota tests fail with 429',
      '    at callApi (src/client.ts:429:11)',
      'Error: 429 Too Many Requests',
    ];
    expect(await classifier.classify(failed(prose), ctx)).toBeUndefined();
  });

  it('a 404 counts as a missing model only when the line names a model', () => {
    expect(matchRules(['[API Error: 404 Not Found: /v2/chat]'], PROVIDER_RULES)).toBeUndefined();
    expect(
      matchRules(["Model 'x' not found on provider (HTTP 404)."], PROVIDER_RULES)?.rule.class,
    ).toBe('model-unavailable');
  });
});
