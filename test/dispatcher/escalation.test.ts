import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../engine/cli-in-process.js';
import { runEngineOnFiles } from '../engine/harness.js';
import { gitWorkspace, taskCommits } from '../isolation/git-workspace.js';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const failing = (task: string) => ({
  when: { task },
  steps: [
    { print: 'building…' },
    { print: `fatal: cannot build ${task}`, stream: 'stderr' },
    { exit: 2 },
  ],
});

// The runs in this process on the file store (test/engine), status and resolve through the
// CLI's own entry: the files and answers are a spawned run's, without the processes.
describe('escalation of blocked tasks (in-process engine, file store, CLI commands)', {
  timeout: 120_000,
}, () => {
  it('writes a failure bundle and interview request, lists it until resolved; --retry runs it again, --skip leaves it blocked', async () => {
    const ws = new Workspace();
    const catalog = (broken: string[]) =>
      ws.catalog({
        a: {
          scenario: {
            cases: [approve, ...broken.map(failing)],
            steps: [{ fillChecklist: true }],
          },
        },
      });
    catalog(['g/x', 'g/y']);
    ws.task('g/x', {
      files: ['src/x.ts'],
      done: { command: 'node -e "process.exit(0)"', assertion: 'exit code 0' },
    });
    ws.task('g/y', { files: ['src/y.ts'] });
    ws.task('g/z', { files: ['src/z.ts'], dependsOn: ['x'] });
    ws.task('g/w', { files: ['src/w.ts'], dependsOn: ['z'] });

    const first = await runEngineOnFiles(ws);
    expect(first.code, first.stdout).toBe(3);
    expect(first.stdout).toMatch(/escalated +g\/x SY_BUDGET_EXHAUSTED/);

    const bundle = JSON.parse(
      ws.read('agent-task/.switchyard/escalations/g/x.failure-bundle.json'),
    );
    expect(bundle.task).toMatchObject({ id: 'g/x', group: 'g', name: 'x', planLoop: 1 });
    expect(bundle.failure).toMatchObject({
      code: 'SY_BUDGET_EXHAUSTED',
      class: 'generic-error',
      stage: 'worker',
      evidence: ['fatal: cannot build g/x'],
    });
    expect(bundle.attempts).toEqual({ total: 10, stage: 10 });
    expect(bundle.definitionOfDone.command).toBe('node -e "process.exit(0)"');
    expect(bundle.lastAttempt.stderrTail).toEqual(['fatal: cannot build g/x']);
    expect(bundle.lastAttempt.stdoutTail.join('\n')).toContain('building');
    expect(bundle.evidencePaths.length).toBeGreaterThan(0);
    for (const p of bundle.evidencePaths) expect(ws.exists(p)).toBe(true);
    expect(bundle.blockedDownstream).toEqual(['g/w', 'g/z']);
    expect(bundle.question).toMatch(
      /^Task g\/x failed its worker stage 10 times in a row with generic-error\. The last evidence was: "fatal: cannot build g\/x"/,
    );
    const interview = JSON.parse(
      ws.read('agent-task/.switchyard/escalations/g/x.interview-request.json'),
    );
    expect(interview.options.map((o: { command: string }) => o.command)).toEqual([
      'switchyard resolve g/x --retry',
      'switchyard resolve g/x --skip',
    ]);
    expect(interview.bundle).toBe('agent-task/.switchyard/escalations/g/x.failure-bundle.json');
    const escalated = ws.events().filter((e) => e.type === 'task.escalated');
    expect(escalated.map((e) => e.task).sort()).toEqual(['g/x', 'g/y']);

    const status = async () => {
      const r = await cli(['status', '--workspace', ws.dir, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { escalations: { task: string; code: string }[] };
    };
    expect((await status()).escalations.map((e) => e.task).sort()).toEqual(['g/x', 'g/y']);
    const text = await cli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toContain('escalations (2)');
    expect(text.stdout).toContain('switchyard resolve g/x --retry|--skip');

    // Bad answers are refused with a clear error (exit 2).
    const neither = await cli(['resolve', 'g/x', '--workspace', ws.dir]);
    expect(neither.code).toBe(2);
    const notBlocked = await cli(['resolve', 'g/z', '--skip', '--workspace', ws.dir]);
    expect(notBlocked.code).toBe(2);
    expect(notBlocked.stderr + notBlocked.stdout).toContain('g/z is not blocked');

    // The agent is fixed for g/x; g/y is given up on.
    catalog(['g/y']);
    const retry = await cli([
      'resolve',
      'g/x',
      '--retry',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
    ]);
    expect(retry.code, retry.stderr).toBe(0);
    const skip = await cli(['resolve', 'g/y', '--skip', '--workspace', ws.dir]);
    expect(skip.code, skip.stderr).toBe(0);
    expect((await status()).escalations).toEqual([]);
    expect(JSON.parse(ws.read('agent-task/.switchyard/tasks/g/x.json')).blocked).toBeUndefined();
    expect(
      JSON.parse(ws.read('agent-task/.switchyard/escalations/g/y.failure-bundle.json')).resolution
        .action,
    ).toBe('skip');

    const second = await runEngineOnFiles(ws);
    expect(second.code, second.stdout).toBe(3); // g/y stays blocked
    for (const id of ['x', 'z', 'w'])
      expect(ws.exists(`agent-task/archive/g/${id}/complete.log`)).toBe(true);
    expect(
      ws.events().filter((e) => e.type === 'attempt.started' && e.task === 'g/y'),
    ).toHaveLength(10);
    // g/x kept its failed attempts as history.
    const x = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/x.json'));
    expect(x.attempts.filter((a: { result: string }) => a.result === 'generic-error')).toHaveLength(
      10,
    );
    // A skipped escalation is not raised again by later runs.
    expect(ws.events().filter((e) => e.type === 'task.escalated')).toHaveLength(2);
    expect((await status()).escalations).toEqual([]);
  });
});

describe('escalation bundles of checks that block (real git, fake agents)', {
  timeout: 300_000,
}, () => {
  it('a definition of done that keeps failing and an apply rolled back again and again: every bundle field, the question naming the failure', async () => {
    const node = process.execPath;
    // Fails in the task's worktree: the worker never gets the answer right.
    const gateCheck = `console.log('not ok 1 - the answer is 42, got', require('node:fs').readFileSync('src/gate.txt','utf8').trim());process.exit(1);`;
    // Passes in the worktree, fails on the source while the user's untracked `broken` is there.
    const sourceCheck = `const bad=require('node:fs').existsSync('broken');console.log(bad?'FAIL on the source':'PASS');process.exit(bad?1:0);`;
    const ws = gitWorkspace({
      'src/gate.txt': '0\n',
      'src/a.js': 'a0\n',
      'gate.cjs': gateCheck,
      'source.cjs': sourceCheck,
    });
    writeFileSync(ws.path('broken'), 'user file\n');
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', task: 'g/gate' },
              steps: [
                { write: { path: 'src/gate.txt', content: '41\n' } },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'v1\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/gate', {
      files: ['src/gate.txt'],
      done: { command: `${node} gate.cjs`, assertion: 'exit code 0' },
    });
    ws.task('g/apply', {
      files: ['src/a.js'],
      done: { command: `${node} source.cjs`, assertion: 'exit code 0' },
    });
    ws.task('g/after', { files: ['src/after.js'], dependsOn: ['apply'] });
    // Run with --workspace from another folder (the repository root of this project).
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(3);
    // `switchyard run` writes the run's retrospective (its figures: review/retro.test.ts).
    const runId = String(ws.events().find((e) => e.type === 'run.started')?.runId);
    expect(readdirSync(ws.path('agent-task/retros'))).toEqual([
      expect.stringMatching(new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${runId}\\.md$`)),
    ]);
    const bundleOf = (task: string) =>
      JSON.parse(ws.read(`agent-task/.switchyard/escalations/g/${task}.failure-bundle.json`));

    const gate = bundleOf('gate');
    expect(gate.task).toMatchObject({ id: 'g/gate', plan: 'agent-task/g/gate/PLAN.md' });
    expect(ws.exists(gate.task.plan)).toBe(true);
    // The same gate output three times in a row (config corrections.maxRepeats) stops it.
    expect(gate.failure).toMatchObject({ code: 'SY_TASK_BLOCKED', stage: 'gate' });
    expect(gate.failure.reason).toMatch(/^the agent repeats itself/);
    expect(gate.attempts).toEqual({ total: 3, stage: 3 });
    expect(gate.definitionOfDone.command).toBe(`${node} gate.cjs`);
    expect(gate.lastCheck).toMatchObject({ stage: 'gate', command: `${node} gate.cjs` });
    expect(gate.lastCheck.outputTail).toContain('not ok 1 - the answer is 42, got 41');
    expect(gate.question).toContain(
      `Task g/gate is blocked: the definition of done (\`${node} gate.cjs\`) failed 3 times in a row, with the same result each time (the definition-of-done command \`${node} gate.cjs\` failed: expected exit code 0, got exit code 1.).`,
    );
    expect(gate.question).toContain('Is the definition of done right and passable as written');
    expect(gate.artifacts).toContain(gate.lastCheck.output);
    // The tails of the worker whose work the check judged.
    expect(gate.lastAttempt).toMatchObject({ role: 'worker', target: 'a', result: 'success' });
    expect(Array.isArray(gate.lastAttempt.stdoutTail)).toBe(true);

    const apply = bundleOf('apply');
    expect(apply.failure).toMatchObject({ code: 'SY_TASK_BLOCKED', stage: 'apply' });
    expect(apply.attempts.stage).toBe(3);
    const rolled = ws
      .events()
      .filter(
        (e) => e.type === 'task.isolation' && e.task === 'g/apply' && e.step === 'rolled-back',
      )
      .map((e) => e.commit);
    expect(rolled).toHaveLength(3);
    expect(apply.source).toMatchObject({
      branch: 'switchyard/g/apply',
      rolledBack: true,
      rolledBackCommits: rolled,
    });
    expect(apply.lastCheck.outputTail).toContain('FAIL on the source');
    expect(apply.lastAttempt).toMatchObject({ role: 'worker', target: 'a', result: 'success' });
    expect(apply.blockedDownstream).toEqual(['g/after']);
    expect(apply.question).toMatch(
      /^Task g\/apply is blocked: the approved change could not be applied to the source 3 times in a row, with the same result each time \(the definition of done failed on the source branch/,
    );
    for (const bundle of [gate, apply])
      for (const p of [...bundle.evidencePaths, ...bundle.artifacts])
        expect(ws.exists(p), p).toBe(true);
    // Nothing of the rolled-back commits stayed on the source.
    expect(taskCommits(ws)).toEqual([]);
  });
});
