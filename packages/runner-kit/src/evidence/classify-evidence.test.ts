import { type ClassifierPlugin, SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { buildTerminalEvidence } from './build-evidence.js';
import { classifiersFor, classifyEvidence } from './classify-evidence.js';
import { collectEvidence } from './evidence-collector.js';

const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };

function plugin(
  name: string,
  agents: ClassifierPlugin['agents'],
  fn: ClassifierPlugin['classify'],
): ClassifierPlugin {
  return { kind: 'classifier', meta: { name }, agents, classify: fn };
}

const quotaOnStderr = plugin('quota', ['alpha'], (e) => {
  const line = e.stderrTail.find((l) => /429/.test(l));
  return line ? { class: 'provider-quota', confidence: 'certain', evidence: [line] } : undefined;
});
const generic = plugin('generic', '*', (e) =>
  e.exitCode !== 0 && e.exitCode !== null
    ? { class: 'generic-error', confidence: 'likely', evidence: [`exit ${e.exitCode}`] }
    : undefined,
);

describe('classifyEvidence', () => {
  it('orders agent-specific classifiers before generic ones', () => {
    const other = plugin('other', ['beta'], () => undefined);
    expect(
      classifiersFor('alpha', [generic, other, quotaOnStderr]).map((c) => c.meta.name),
    ).toEqual(['quota', 'generic']);
  });

  it('lets the first verdict win and names the classifier', async () => {
    const evidence = buildTerminalEvidence({
      agent: 'alpha',
      outputFormat: 'text',
      exitCode: 1,
      stderrTail: ['API Error: 429 rate limited'],
    });
    const result = await classifyEvidence(evidence, [generic, quotaOnStderr], ctx);
    expect(result).toEqual({
      class: 'provider-quota',
      confidence: 'certain',
      evidence: ['API Error: 429 rate limited'],
      classifier: 'quota',
    });
    const forBeta = await classifyEvidence(
      { ...evidence, agent: 'beta' },
      [quotaOnStderr, generic],
      ctx,
    );
    expect(forBeta.classifier).toBe('generic');
  });

  it('is success for a clean exit even when prose mentions quota', async () => {
    const evidence = collectEvidence({
      agent: 'alpha',
      outputFormat: 'jsonl',
      stdout: '{"type":"assistant","text":"You hit a rate limit quota 429 earlier"}\n',
      stderr: '',
      exitCode: 0,
    });
    const result = await classifyEvidence(evidence, [], ctx);
    expect(result).toEqual({
      class: 'success',
      confidence: 'certain',
      evidence: [],
      classifier: 'core',
    });
  });

  it('falls back to process-termination for a signal and generic-error otherwise', async () => {
    const killed = buildTerminalEvidence({
      agent: 'x',
      outputFormat: 'text',
      exitCode: null,
      signal: 'SIGKILL',
    });
    expect((await classifyEvidence(killed, [], ctx)).class).toBe('process-termination');
    const failed = buildTerminalEvidence({
      agent: 'x',
      outputFormat: 'text',
      exitCode: 0,
      terminalEvents: [
        { line: 3, raw: '{"type":"error"}', event: { type: 'error' }, reason: 'type=error' },
      ],
    });
    expect(await classifyEvidence(failed, [], ctx)).toMatchObject({
      class: 'generic-error',
      evidence: ['{"type":"error"}'],
    });
  });

  it('reports a classifier that throws', async () => {
    const broken = plugin('broken', '*', () => {
      throw new Error('oops');
    });
    const evidence = buildTerminalEvidence({ agent: 'x', outputFormat: 'text', exitCode: 1 });
    const error = await classifyEvidence(evidence, [broken], ctx).catch((e: unknown) => e);
    expect(SwitchyardError.is(error) && error.code).toBe('SY_CLASSIFIER_FAILED');
  });
});
