import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTranscript, type RunnerSpec } from '@switchyard/core';
import { attemptEnvironment, attemptPaths } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import runner from './index.js';

const fakeAgent = createRequire(import.meta.url)
  .resolve('@switchyard/testkit/package.json')
  .replace(/package\.json$/, 'dist/fake-agent-bin.js');

function spec(scenario: string, extra: Partial<RunnerSpec> = {}): RunnerSpec {
  const root = mkdtempSync(join(tmpdir(), 'sy-jsonl-'));
  const file = join(root, 'scenario.yaml');
  writeFileSync(file, scenario);
  const attemptId = `j-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const attemptDir = join(root, 'attempt');
  const argv = [process.execPath, fakeAgent, '--scenario', file, 'the prompt'];
  return {
    attemptId,
    attemptDir,
    agent: 'claude-code',
    outputFormat: 'jsonl',
    argv,
    cwd: root,
    env: attemptEnvironment({ attemptId, role: 'worker', workspace: root, attemptDir }),
    stallTimeoutMs: 30_000,
    retryLoopTimeoutMs: 30_000,
    pollIntervalMs: 20,
    killGraceMs: 500,
    locator: {
      taskId: 'g/t',
      role: 'worker',
      planLoop: 0,
      targetId: 't',
      agent: 'claude-code',
      model: 'm',
      executionClass: 'cloud_model',
      runtime: { command: argv, argv, outputFormat: 'jsonl' },
      catalog: { source: 'bundled', revision: 'r' },
    },
    ...extra,
  };
}

const transcript = defineTranscript({
  meta: { name: 'test-transcript' },
  agents: '*',
  formatEvent: (e) =>
    e.type === 'assistant'
      ? `assistant: ${JSON.stringify((e.message as { content: unknown }).content)}`
      : undefined,
});

describe('runner-jsonl with the fake agent', () => {
  it('exposes terminal events of a provider fault and keeps prose about quotas out of them', async () => {
    const s = spec(
      `format: claude-code
steps:
  - say: "The docs say the quota is 429 requests per minute; rate limits apply."
  - print: "not json at all"
  - fault: quota
`,
      { transcript },
    );
    const outcome = await (await runner.start(s)).done;
    expect(outcome.exitCode).toBe(1);
    expect(outcome.evidence.terminalEvents).toHaveLength(1);
    expect(outcome.evidence.terminalEvents[0]!.raw).toContain('API Error: Request rejected (429)');
    expect(outcome.evidence.lastEvent).toMatchObject({ type: 'result', is_error: true });
    const normalized = readFileSync(attemptPaths(s.attemptDir).normalized, 'utf8');
    expect(normalized).toContain('assistant: [{"type":"text","text":"The docs say the quota');
    expect(normalized).toContain('not json at all');
  });

  it('a clean run has no terminal events', async () => {
    const outcome = await (await runner.start(spec('format: codex\nsteps:\n  - say: hi\n'))).done;
    expect(outcome.exitCode).toBe(0);
    expect(outcome.evidence.terminalEvents).toEqual([]);
    expect(outcome.evidence.lastEvent).toMatchObject({ type: 'turn.completed' });
  });
});
