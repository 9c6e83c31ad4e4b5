import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newTaskState } from '../state/state-schema.js';
import { buildEscalation } from './build-bundle.js';

const KEY = 'sk-ant-api03-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNmZx9';

describe('buildEscalation redacts like all other evidence', () => {
  it('masks a secret in the stdout/stderr tails, the block evidence and the question', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'sy-bundle-'));
    const stateDir = join(workspace, 'agent-task/.switchyard');
    const attemptDir = join(stateDir, 'attempts/a1');
    mkdirSync(attemptDir, { recursive: true });
    // A capture whose in-place masking never ran (the dispatcher died after the attempt).
    writeFileSync(join(attemptDir, 'stdout.raw'), `starting\nANTHROPIC_API_KEY=${KEY}\n`);
    writeFileSync(join(attemptDir, 'stderr.raw'), `error: token ${KEY} rejected\n`);
    const state = {
      ...newTaskState('g/t'),
      attempts: [
        {
          id: 'a1',
          role: 'worker' as const,
          planLoop: 1,
          target: 'a',
          attemptDir,
          status: 'finished' as const,
          startedAt: '2026-12-01T00:00:00.000Z',
          result: 'generic-error' as const,
          exitCode: 1,
        },
      ],
      blocked: {
        reason: '10 consecutive failures of worker',
        stage: 'worker',
        evidence: [`error: token ${KEY} rejected`],
        at: '2026-12-01T00:01:00.000Z',
      },
    };
    const { bundle, interview } = buildEscalation({
      workspace,
      task: {
        id: 'g/t',
        group: 'g',
        name: 't',
        dir: join(workspace, 'agent-task/g/t'),
        planFile: 'agent-task/g/t/PLAN.md',
      },
      state,
      downstream: [],
      bundlePath: 'agent-task/.switchyard/escalations/g/t.failure-bundle.json',
      now: new Date('2026-12-01T00:02:00.000Z'),
      secrets: [{ name: 'ANTHROPIC_API_KEY', value: KEY }],
    });
    const text = JSON.stringify({ bundle, interview });
    expect(text).not.toContain(KEY);
    expect(bundle.lastAttempt?.stdoutTail).toEqual([
      'starting',
      'ANTHROPIC_API_KEY=[redacted:ANTHROPIC_API_KEY]',
    ]);
    expect(bundle.lastAttempt?.stderrTail).toEqual([
      'error: token [redacted:ANTHROPIC_API_KEY] rejected',
    ]);
    expect(bundle.failure.evidence).toEqual(['error: token [redacted:ANTHROPIC_API_KEY] rejected']);
    expect(interview.question).toContain('[redacted:ANTHROPIC_API_KEY]');
  });
});
