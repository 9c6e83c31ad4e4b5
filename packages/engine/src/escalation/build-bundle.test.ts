import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState, type TaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
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

describe('buildEscalation: every field seed 003 lists, for every kind of block', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'sy-bundle-'));
  const stateDir = join(workspace, 'agent-task/.switchyard');
  const task = {
    id: 'g/t',
    group: 'g',
    name: 't',
    dir: join(workspace, 'agent-task/g/t'),
    planFile: 'agent-task/g/t/PLAN.md',
    definitionOfDone: {
      command: 'npm test',
      argv: ['npm', 'test'],
      assertion: { kind: 'exit-code' as const, code: 0 },
      line: 12,
    },
  };
  type BlockedState = Parameters<typeof buildEscalation>[0]['state'];
  /** The bundle of a state whose `blocked` each test has just set. */
  const build = (state: Omit<BlockedState, 'blocked'> & Partial<Pick<BlockedState, 'blocked'>>) =>
    buildEscalation({
      workspace,
      task,
      state: state as BlockedState,
      downstream: ['g/later'],
      bundlePath: 'agent-task/.switchyard/escalations/g/t.failure-bundle.json',
      now: new Date('2026-12-01T00:02:00.000Z'),
    }).bundle;

  it('a definition of done that failed ten times: its count, output tail, command and a question naming it', () => {
    const log = join(stateDir, 'gates/g/t/gate.2.abc.log');
    mkdirSync(join(stateDir, 'gates/g/t'), { recursive: true });
    writeFileSync(log, 'running 3 tests\nnot ok 2 - adds numbers\n# fail 1\n');
    const attemptDir = join(stateDir, 'attempts/w10');
    mkdirSync(attemptDir, { recursive: true });
    writeFileSync(join(attemptDir, 'stdout.raw'), 'edited src/add.js\n');
    writeFileSync(join(attemptDir, 'stderr.raw'), '');
    const state = newTaskState('g/t');
    state.planLoop = 2;
    state.failures.gate = 10;
    // The worker's attempt whose work the definition of done judged (it succeeded itself).
    state.attempts = [
      {
        id: 'w10',
        role: 'worker',
        planLoop: 2,
        target: 'a',
        attemptDir,
        status: 'finished',
        startedAt: '2026-12-01T00:00:00.000Z',
        result: 'success',
        exitCode: 0,
      },
    ];
    state.blocked = {
      reason:
        '10 consecutive failed definition-of-done gates (expected exit code 0, got exit code 1)',
      stage: 'gate',
      evidence: ['command: npm test', 'not ok 2 - adds numbers', `output: ${log}`],
      output: log,
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.failure).toMatchObject({ code: 'SY_BUDGET_EXHAUSTED', stage: 'gate' });
    expect(bundle.attempts).toEqual({ total: 1, stage: 10 });
    expect(bundle.lastAttempt).toMatchObject({
      attempt: 'w10',
      role: 'worker',
      result: 'success',
      attemptDir: 'agent-task/.switchyard/attempts/w10',
      stdoutTail: ['edited src/add.js'],
      stderrTail: [],
    });
    // The plan of the loop that blocked, relative to the workspace whatever the cwd.
    expect(bundle.task.plan).toBe('agent-task/g/t/PLAN-2.md');
    expect(bundle.definitionOfDone).toMatchObject({ command: 'npm test', line: 12 });
    expect(bundle.lastCheck).toEqual({
      stage: 'gate',
      command: 'npm test',
      output: 'agent-task/.switchyard/gates/g/t/gate.2.abc.log',
      outputTail: ['running 3 tests', 'not ok 2 - adds numbers', '# fail 1'],
    });
    expect(bundle.evidencePaths).toContain('agent-task/.switchyard/gates/g/t/gate.2.abc.log');
    expect(bundle.blockedDownstream).toEqual(['g/later']);
    expect(bundle.question).toBe(
      'Task g/t is blocked: the definition of done (`npm test`) failed 10 times in a row (expected exit code 0, got exit code 1). The last evidence was: "command: npm test". Is the definition of done right and passable as written, or should the plan (or the command) change before the task is retried?',
    );
  });

  it('an apply rolled back ten times: the rolled-back commits, the source check output and the worktree', () => {
    const log = join(stateDir, 'gates/g/t/source.1.abc.log');
    mkdirSync(join(stateDir, 'gates/g/t'), { recursive: true });
    writeFileSync(log, 'FAIL on the source\n');
    const state = newTaskState('g/t');
    state.failures.apply = 10;
    const worktree = join(workspace, 'agent-task/.switchyard/worktrees/g/t');
    state.isolation = {
      branch: 'switchyard/g/t',
      path: worktree,
      workdir: worktree,
      sourceBranch: 'main',
      baseCommit: 'b'.repeat(40),
      rolledBack: ['1'.repeat(40), '2'.repeat(40)],
    };
    state.blocked = {
      reason:
        '10 consecutive failed applies: the definition of done failed on the source branch after your change was applied, so it was rolled back: `npm test` on the source: expected exit code 0, got exit code 1',
      stage: 'apply',
      evidence: ['FAIL on the source'],
      output: log,
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.attempts.stage).toBe(10);
    expect(bundle.source).toMatchObject({
      branch: 'switchyard/g/t',
      baseCommit: 'b'.repeat(40),
      rolledBack: true,
      rolledBackCommits: ['1'.repeat(40), '2'.repeat(40)],
    });
    expect(bundle.lastCheck).toMatchObject({
      stage: 'apply',
      output: 'agent-task/.switchyard/gates/g/t/source.1.abc.log',
      outputTail: ['FAIL on the source'],
    });
    expect(bundle.artifacts).toEqual([
      'agent-task/.switchyard/worktrees/g/t',
      'agent-task/.switchyard/gates/g/t/source.1.abc.log',
    ]);
    expect(bundle.question).toMatch(
      /^Task g\/t is blocked: the approved change could not be applied to the source 10 times in a row \(the definition of done failed on the source branch/,
    );
  });

  it('a check stopped for repeating itself: its count and the repeated result in the question', () => {
    const state = newTaskState('g/t');
    state.failures.gate = 3;
    state.blocked = {
      reason:
        'the agent repeats itself: the same gate correction 3 times in a row (the definition-of-done command `npm test` failed: expected exit code 0, got exit code 1.)',
      stage: 'gate',
      evidence: ['not ok 2 - adds numbers'],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.attempts.stage).toBe(3);
    expect(bundle.question).toBe(
      'Task g/t is blocked: the definition of done (`npm test`) failed 3 times in a row, with the same result each time (the definition-of-done command `npm test` failed: expected exit code 0, got exit code 1.). The last evidence was: "not ok 2 - adds numbers". Is the definition of done right and passable as written, or should the plan (or the command) change before the task is retried?',
    );
  });

  it('a worktree set-up that failed: its output file (workspace-relative) and tail, the question naming the command', () => {
    mkdirSync(join(stateDir, 'gates/g/t'), { recursive: true });
    writeFileSync(join(stateDir, 'gates/g/t/setup.1.abc.log'), 'npm ERR! missing script: ci\n');
    const state = newTaskState('g/t');
    state.blocked = {
      reason:
        'the worktree set-up failed: npm ci exited with code 1 (fix the command in isolation.setup or what it needs, then `switchyard retry g/t` runs the set-up again)',
      stage: 'setup',
      evidence: [
        'output: agent-task/.switchyard/gates/g/t/setup.1.abc.log',
        'evidence: agent-task/.switchyard/gates/g/t/setup.1.abc.json',
        'npm ERR! missing script: ci',
      ],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.lastCheck).toEqual({
      stage: 'setup',
      output: 'agent-task/.switchyard/gates/g/t/setup.1.abc.log',
      outputTail: ['npm ERR! missing script: ci'],
    });
    expect(bundle.artifacts).toContain('agent-task/.switchyard/gates/g/t/setup.1.abc.log');
    expect(bundle.question).toMatch(
      /^Task g\/t is blocked in its setup stage: the worktree set-up failed: npm ci exited with code 1/,
    );
  });

  it('a completion promise unmet ten times: a spent budget, its count and the unmet part in the question', () => {
    const state = newTaskState('g/t');
    state.failures.promise = 10;
    state.blocked = {
      reason:
        '10 consecutive completion promises unmet, so nothing was applied (1 part(s): the review approved plan loop 1, not the work as it is now)',
      stage: 'promise',
      evidence: ['the review approved plan loop 1, not the work as it is now'],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.failure.code).toBe('SY_BUDGET_EXHAUSTED');
    expect(bundle.attempts.stage).toBe(10);
    expect(bundle.lastCheck).toBeUndefined();
    expect(bundle.question).toBe(
      'Task g/t is blocked: the completion promise was unmet 10 times in a row (1 part(s): the review approved plan loop 1, not the work as it is now). The last evidence was: "the review approved plan loop 1, not the work as it is now". Can each unmet part hold as the plan is written (its checks, reviews and checklist), or should the plan change before the task is retried?',
    );
  });

  it('an agent stage whose evidence says `output:` without such a file has no check', () => {
    const state = newTaskState('g/t');
    state.failures.worker = 10;
    state.blocked = {
      reason: '10 consecutive failures in the worker stage (generic-error: boom)',
      stage: 'worker',
      evidence: ['output: whatever the agent printed'],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.lastCheck).toBeUndefined();
  });

  it('parking past its budget: the quota by name and what would unblock it', () => {
    const state = newTaskState('g/t');
    state.blocked = {
      reason:
        'every candidate of the worker stage keeps answering with a quota reset: 2 consecutive parks for quota resets (park.maxParks 2)',
      stage: 'worker',
      class: 'provider-quota',
      evidence: ['a: resets 2026-12-01T01:00:00.000Z', 'b: resets 2026-12-01T02:00:00.000Z'],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.failure).toMatchObject({ code: 'SY_TASK_BLOCKED', class: 'provider-quota' });
    expect(bundle.question).toBe(
      'Task g/t is blocked: every candidate of the worker stage keeps answering with a quota reset: 2 consecutive parks for quota resets (park.maxParks 2). The last evidence was: "a: resets 2026-12-01T01:00:00.000Z". Should it wait for a quota to reset (retry it after the first reset named in the evidence), or run on a candidate with quota (add one of another provider to the route, or raise park.maxWaitSeconds / park.maxParks)?',
    );
  });

  it('a block without a budget names its stage and reason', () => {
    const state = newTaskState('g/t');
    state.blocked = {
      reason: 'PLAN route "x" is not a route id',
      stage: 'worker',
      evidence: [],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.failure.code).toBe('SY_TASK_BLOCKED');
    expect(bundle.question).toBe(
      'Task g/t is blocked in its worker stage: PLAN route "x" is not a route id. What should happen to it: fix the cause and retry, or leave it blocked?',
    );
  });

  it('an agent stage blocked again after a retry: the question counts the failures in a row, not every attempt of the stage', () => {
    const state = newTaskState('g/t');
    // Ten failed worker attempts blocked the task, a human retried it, ten more failed.
    state.attempts = workerAttempts(stateDir, 20, 'generic-error', 1);
    state.blocked = {
      reason: '10 consecutive failures in the worker stage (last: generic-error on a)',
      stage: 'worker',
      class: 'generic-error',
      evidence: ['boom'],
      at: '2026-12-01T00:01:00.000Z',
    };
    const bundle = build(state);
    expect(bundle.attempts).toEqual({ total: 20, stage: 20 });
    expect(bundle.question).toMatch(
      /^Task g\/t failed its worker stage 10 times in a row with generic-error\. /,
    );
  });

  it('the count a block recorded is the one asked about, whatever its reason says', () => {
    const state = newTaskState('g/t');
    // A retried task blocked again: 20 worker attempts, the last 10 in a row changed the source.
    state.attempts = workerAttempts(stateDir, 20, 'success', 0);
    const blocked = {
      reason: '10 consecutive attempts changed the source checkout: src/a.ts',
      stage: 'worker',
      evidence: ['src/a.ts'],
      at: '2026-12-01T00:01:00.000Z',
    };
    state.blocked = { ...blocked, consecutiveFailures: 10 };
    expect(build(state).question).toMatch(
      /^Task g\/t failed its worker stage 10 times in a row\. /,
    );
    // Recorded before the count was kept: no count in a form the reason is read for, so the
    // stage's attempts stand in, as they always did.
    state.blocked = blocked;
    expect(build(state).question).toMatch(
      /^Task g\/t failed its worker stage 20 times in a row\. /,
    );
    // A check stage: the recorded count, not its failure counter (reset by a retry since).
    state.failures.gate = 0;
    state.blocked = {
      reason: '10 consecutive failed definition-of-done gates (exit code 1, expected 0)',
      stage: 'gate',
      evidence: [],
      at: '2026-12-01T00:01:00.000Z',
      consecutiveFailures: 10,
    };
    expect(build(state).question).toMatch(
      /^Task g\/t is blocked: the definition of done \(`npm test`\) failed 10 times in a row /,
    );
  });
});

/** `count` finished worker attempts of plan loop 1 on target `a`, each with `result`. */
function workerAttempts(
  stateDir: string,
  count: number,
  result: 'generic-error' | 'success',
  exitCode: number,
): TaskState['attempts'] {
  return Array.from({ length: count }, (_, i) => ({
    id: `w${i + 1}`,
    role: 'worker' as const,
    planLoop: 1,
    target: 'a',
    attemptDir: join(stateDir, `attempts/w${i + 1}`),
    status: 'finished' as const,
    startedAt: '2026-12-01T00:00:00.000Z',
    result,
    exitCode,
  }));
}
