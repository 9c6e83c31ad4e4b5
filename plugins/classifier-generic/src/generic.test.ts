import { SwitchyardError } from '@switchyard/core';
import { buildTerminalEvidence, classifyEvidence } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import { genericClassifier } from './generic-classifier.js';
import { genericTranscript } from './generic-transcript.js';
import plugin from './index.js';

const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };
const generic = genericClassifier();

describe('generic classifier', () => {
  it('classifies a failed run by the API Error line in its stderr tail and names the reset time', async () => {
    const evidence = buildTerminalEvidence({
      agent: 'some-new-cli',
      outputFormat: 'text',
      exitCode: 2,
      stderrTail: ['starting…', 'API Error: 429 Too Many Requests; retry-after: 12'],
    });
    expect(await classifyEvidence(evidence, [generic], ctx)).toEqual({
      class: 'provider-quota',
      confidence: 'certain',
      evidence: ['API Error: 429 Too Many Requests; retry-after: 12'],
      retryAfter: '2026-11-30T12:00:12.000Z',
      classifier: '@switchyard/classifier-generic',
    });
  });

  it('never reads stdout prose of a clean exit', async () => {
    const evidence = buildTerminalEvidence({
      agent: 'x',
      outputFormat: 'text',
      exitCode: 0,
      stdoutTail: ['The API returned 429 rate limit; quota exceeded.'],
    });
    expect(await generic.classify(evidence, ctx)).toBeUndefined();
    expect((await classifyEvidence(evidence, [generic], ctx)).class).toBe('success');
  });

  it('classifies a retry loop the dispatcher ended by its retry lines', async () => {
    const evidence = buildTerminalEvidence({
      agent: 'x',
      outputFormat: 'text',
      exitCode: null,
      signal: 'SIGTERM',
      endedBy: 'retry-loop',
      retryLines: ['Retrying in 5s: connect ECONNREFUSED 10.0.0.1:443'],
    });
    expect(await generic.classify(evidence, ctx)).toMatchObject({
      class: 'provider-connection',
      confidence: 'likely',
    });
    const stalled = { ...evidence, endedBy: 'stall' as const, retryLines: [] };
    expect(await generic.classify(stalled, ctx)).toMatchObject({
      class: 'process-termination',
      evidence: ['ended by stall'],
    });
    expect(generic.isRetryLine?.('Reconnecting... 2/5')).toBe(true);
    expect(generic.isRetryLine?.('Edited src/retry.ts')).toBe(false);
  });

  it('applies extra rules first and validates every option at once', async () => {
    const custom = genericClassifier({
      extraRules: [{ class: 'provider-quota', pattern: 'budget exhausted' }],
    });
    const evidence = buildTerminalEvidence({
      agent: 'x',
      outputFormat: 'text',
      exitCode: 1,
      stderrTail: ['proxy: team budget exhausted'],
    });
    expect((await custom.classify(evidence, ctx))?.class).toBe('provider-quota');
    try {
      genericClassifier({
        extraRules: [
          { class: 'nope' as never, pattern: '(' },
          { class: 'context-limit', pattern: '(' },
        ],
        stderrLines: 0,
      });
      expect.unreachable();
    } catch (error) {
      expect(SwitchyardError.is(error) && error.code).toBe('SY_PLUGIN_LOAD');
      const paths = (error as SwitchyardError).problems.map((p) => p.path);
      expect(paths).toEqual(expect.arrayContaining(['extraRules.0.class', 'stderrLines']));
    }
    expect(() =>
      genericClassifier({ extraRules: [{ class: 'context-limit', pattern: '(' }] }),
    ).toThrow(/extraRules\.0\.pattern/);
  });

  it('ships a classifier and a transcript as the plugin entry', () => {
    expect(plugin().map((p) => p.kind)).toEqual(['classifier', 'transcript']);
    const t = genericTranscript();
    expect(t.formatEvent({ type: 'message', role: 'assistant', content: 'hi' })).toBe(
      '[message] assistant: hi',
    );
    expect(t.formatEvent({ type: 'ping' })).toBeUndefined();
  });
});
