import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { indexOfEvent, Workspace } from './helpers.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};
const work = (file: string) => ({
  when: { role: 'worker', task: `release/${file}` },
  steps: [{ write: { path: `src/${file}.txt`, content: `${file}\n` } }, { fillChecklist: true }],
});

const PLAN = `version: 1
kind: orchestrate-plan
metadata:
  id: release
  title: Release
  goal: two lanes of work
lanes:
  - { id: "0", label: Setup }
  - { id: "1", label: Build }
tasks:
  - id: "1"
    title: First
    lane: "0"
    implementation: ["write src/1.txt"]
    files: [src/1.txt]
  - id: "2"
    title: Second
    lane: "1"
    files: [src/2.txt]
    definition_of_done:
      command: "node -e \\"process.exit(require('fs').existsSync('src/2.txt') ? 0 : 1)\\""
      assertion: "exit code 0"
  - id: "3"
    title: Third
    lane: "1"
    backend: b
    files: [src/3.txt]
`;

/** A workspace with two fake-agent targets (a, b) and the plan written to plan.yaml. */
function planWorkspace(plan = PLAN): Workspace {
  const ws = new Workspace();
  const scenario = { cases: [approve, work('1'), work('2'), work('3')] };
  ws.catalog({ a: { scenario }, b: { scenario } });
  writeFileSync(ws.path('plan.yaml'), plan);
  return ws;
}

// One run of a plan is a spawned `switchyard run` (its output, exit code and agents as
// processes); the others run the CLI's own entry in this process (test/engine/cli-in-process.ts):
// the same command, checks and files without a node start per call.
describe('switchyard run plan.yaml (YAML plans on the dispatcher)', { timeout: 120_000 }, () => {
  it('materializes the plan as agent-task/<plan-id>/, runs lanes in order, archives every task; a re-run redoes nothing', async () => {
    const ws = planWorkspace();
    const result = await ws.run([ws.path('plan.yaml')]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain('Plan release: 3 task(s) in agent-task/release/ (3 created)');
    for (const t of ['1', '2', '3']) {
      expect(ws.exists('agent-task/archive/release', t, 'complete.log')).toBe(true);
      expect(ws.read('src', `${t}.txt`)).toBe(`${t}\n`);
    }
    // Lanes: both tasks of lane 1 start after the lane-0 task is archived.
    const events = ws.events();
    const archived1 = indexOfEvent(events, { type: 'task.archived', task: 'release/1' });
    for (const t of ['release/2', 'release/3'])
      expect(indexOfEvent(events, { type: 'attempt.started', task: t })).toBeGreaterThan(archived1);
    // Task 3's backend chooses its worker (b); its review keeps the route, on another target
    // than the worker's (a). The others work on the route's first candidate (a), reviewed by b.
    const started = events.filter((e) => e.type === 'attempt.started');
    const on = (task: string) =>
      started.filter((e) => e.task === task).map((e) => `${e.role}:${e.target}`);
    expect(on('release/3')).toEqual(['worker:b', 'review:a']);
    expect(on('release/1')).toEqual(['worker:a', 'review:b']);
    // The gate of task 2 ran its definition of done.
    expect(
      events.some((e) => e.type === 'gate.finished' && e.task === 'release/2' && e.passed),
    ).toBe(true);
    const plan = ws.read('agent-task/archive/release/2/PLAN.md');
    expect(plan).toContain('depends_on: ["1"]');
    expect(plan).toContain('apply: patch');

    const again = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('(3 done)');
    expect(again.stdout).toContain('The plan has already finished: every task is done');
    expect(ws.events().filter((e) => e.type === 'attempt.started')).toHaveLength(started.length);

    // A changed plan for a task already done is a clear error, exit 2.
    writeFileSync(ws.path('plan.yaml'), PLAN.replace('title: Second', 'title: Second, changed'));
    const changed = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('SY_YAML_PLAN_INVALID');
    expect(changed.stderr).toMatch(
      /plan\.yaml:16:5: task "2" changed in the plan but it is already done/,
    );
  });

  it('refuses a broken plan before anything starts: every problem with line:column, exit 2', async () => {
    const ws = planWorkspace(
      PLAN.replace('backend: b', 'backend: nobody').replace(
        'lane: "1"\n    files: [src/2.txt]',
        'lane: "9"\n    files: [src/2.txt]\n    colour: red',
      ),
    );
    const result = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/plan\.yaml:\d+:\d+: unknown key "colour" in tasks\.1/);
    expect(ws.exists('agent-task/release')).toBe(false);
    const fixed = planWorkspace(
      PLAN.replace('backend: b', 'backend: nobody').replace('lane: "0"', 'lane: "9"'),
    );
    const second = await runInProcess(fixed, [fixed.path('plan.yaml')]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/plan\.yaml:13:11: lane "9" is not declared in lanes/);
    expect(second.stderr).toMatch(
      /plan\.yaml:26:14: backend "nobody" is neither a target id nor an agent/,
    );
    expect(fixed.exists('agent-task/release')).toBe(false);
  });

  it('--dry-run --json: routing precedence (task backend > with > route) and why, nothing written', async () => {
    const ws = planWorkspace();
    const result = await runInProcess(ws, [
      ws.path('plan.yaml'),
      'with',
      'b',
      '--dry-run',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ kind: 'plan-dry-run', with: 'b', summary: { errors: 0 } });
    const worker = (id: string) =>
      report.tasks
        .find((t: { id: string }) => t.id === id)
        .stages.find((s: { stage: string }) => s.stage === 'worker');
    expect(worker('3')).toMatchObject({ target: 'b', source: 'task-backend' });
    expect(worker('1')).toMatchObject({ target: 'b', source: 'with', candidates: ['b', 'a'] });
    const plain = await runInProcess(ws, [ws.path('plan.yaml'), '--dry-run', '--json']);
    const noWith = JSON.parse(plain.stdout);
    expect(noWith.tasks[0].stages[0]).toMatchObject({ target: 'a', source: 'route' });
    expect(noWith.tasks[1].depends_on).toEqual(['1']);
    expect(ws.exists('agent-task/release')).toBe(false);
  });

  it('rejects a positional word other than `with`', async () => {
    const ws = planWorkspace();
    const result = await cli(['run', '--workspace', ws.dir, ws.path('plan.yaml'), 'using', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected `with <target>` after the plan');
  });
});

describe('runner: local (a command from the plan, no agent, no review)', {
  timeout: 120_000,
}, () => {
  it('runs the argv command in the workspace, then its definition of done, archives without review', async () => {
    const ws = new Workspace();
    // The agent target must never run: every attempt of it would fail the test below.
    ws.catalog({ a: { scenario: { steps: [{ fault: 'auth' }] } } });
    const setup = "require('fs').writeFileSync('out/setup.txt', process.argv.slice(1).join(' '))";
    writeFileSync(
      ws.path('plan.yaml'),
      `version: 1
kind: orchestrate-plan
metadata: { id: tools, title: Tools }
tasks:
  - id: setup
    title: Setup
    runner: local
    command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(setup)}, "a b", c]
    files: [out/setup.txt]
    definition_of_done: { command: "${process.execPath} -e \\"process.stdout.write(require('fs').readFileSync('out/setup.txt','utf8'))\\"", assertion: 'stdout contains "a b c"' }
  - id: shell
    title: With a shell
    runner: local
    shell: true
    command: ["echo one > out/shell.txt && echo two >> out/shell.txt"]
    depends_on: [setup]
    files: [out/shell.txt]
`,
    );
    mkdirSync(ws.path('out'), { recursive: true });
    const dry = await runInProcess(ws, [ws.path('plan.yaml'), '--dry-run']);
    expect(dry.code, dry.stdout).toBe(0);
    expect(dry.stdout).toContain('(argv, no shell)');
    expect(dry.stdout).toContain('(shell: true, as the plan says)');
    expect(dry.stdout).toContain(
      'no agent, no review, no commit: runs in the source workspace; its changes (out/setup.txt) stay uncommitted there',
    );
    const result = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(ws.read('out/setup.txt')).toBe('a b c');
    expect(ws.read('out/shell.txt')).toBe('one\ntwo\n');
    const events = ws.events();
    expect(events.filter((e) => e.type === 'attempt.started')).toEqual([]);
    expect(events.filter((e) => e.type === 'review.verdict')).toEqual([]);
    expect(
      events.filter((e) => e.type === 'local.finished').map((e) => [e.task, e.shell, e.passed]),
    ).toEqual([
      ['tools/setup', false, true],
      ['tools/shell', true, true],
    ]);
    expect(
      events.some((e) => e.type === 'gate.finished' && e.task === 'tools/setup' && e.passed),
    ).toBe(true);
    const complete = ws.read('agent-task/archive/tools/setup/complete.log');
    expect(complete).toContain('approved review: none (local runner');
    // Left uncommitted on purpose, and said so.
    expect(complete).toContain(
      "source commit: none (a local command's changes stay uncommitted in the source workspace, as a command run by hand: out/setup.txt)",
    );
    expect(ws.read('agent-task/archive/tools/work_log_1.log')).toContain('local: ');
  });

  it('blocks a failing local command at once with its output as evidence (exit 3)', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fault: 'auth' }] } } });
    writeFileSync(
      ws.path('plan.yaml'),
      `version: 1
kind: orchestrate-plan
metadata: { id: tools, title: Tools }
tasks:
  - { id: bad, title: Bad, runner: local, files: [x.txt], command: [${JSON.stringify(process.execPath)}, -e, "console.log('boom'); process.exit(4)"] }
  - { id: after, title: After, runner: local, files: [y.txt], depends_on: [bad], command: [${JSON.stringify(process.execPath)}, -e, "0"] }
`,
    );
    const result = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(result.code).toBe(3);
    const blocked = ws.events().find((e) => e.type === 'task.blocked' && e.task === 'tools/bad');
    expect(blocked).toMatchObject({
      reason: expect.stringContaining('local command failed (exit code 4)'),
    });
    expect(JSON.stringify(blocked)).toContain('boom');
    expect(ws.events().some((e) => e.type === 'local.finished' && e.task === 'tools/after')).toBe(
      false,
    );
  });

  it('refuses runner, command and shell in a follow-up plan an agent wrote', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [] } } });
    ws.task('g/t', { files: ['a.txt'] });
    writeFileSync(
      ws.path('agent-task/g/t/PLAN-2.md'),
      '---\nrunner: local\ncommand: [rm, -rf, x]\n---\n# t\n\n## Modified Files Summary\n\n- a.txt\n\n## Implementation Checklist\n\n- [ ] x\n',
    );
    const result = await runInProcess(ws, ['--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toContain('"runner" is not allowed in a follow-up plan');
  });
});

describe('legacy markdown task files', { timeout: 120_000 }, () => {
  const LEGACY = `# Feature\n\n### Task 1: First\n- Agent: general-purpose\n- Model: sonnet\n- Parallel: 0\n- Dependencies: none\n- Files: src/1.txt\n\n### Task 2: Second\n- Parallel: 1\n- Dependencies: Task 1\n- Files: src/2.txt\n`;

  it('switchyard plan convert prints the YAML plan; run converts on the fly', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    writeFileSync(ws.path('release.md'), LEGACY);
    const converted = await cli(['plan', 'convert', ws.path('release.md')]);
    expect(converted.code, converted.stderr).toBe(0);
    expect(converted.stdout).toContain('kind: orchestrate-plan');
    expect(converted.stdout).toMatch(
      /- id: "2"\n {4}title: "Second"\n {4}lane: "1"\n {4}runner: code-runner\n {4}depends_on: \["1"\]/,
    );
    const dry = await runInProcess(ws, [ws.path('release.md'), '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const report = JSON.parse(dry.stdout);
    expect(report.plan.id).toBe('release');
    expect(
      report.tasks.map((t: { task_id: string; depends_on: string[] }) => [t.task_id, t.depends_on]),
    ).toEqual([
      ['release/1', []],
      ['release/2', ['1']],
    ]);
    const run = await runInProcess(ws, [ws.path('release.md')]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(ws.exists('agent-task/archive/release/2/complete.log')).toBe(true);
  });

  it('plan convert: a broken markdown file is exit 2 with its line', async () => {
    const ws = new Workspace();
    writeFileSync(
      ws.path('bad.md'),
      '### Task 1: X\n- **Definition of Done**:\n  - Command: make test\n',
    );
    const result = await cli(['plan', 'convert', ws.path('bad.md')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /bad\.md:1: Task 1: the Definition of Done has a Command but no Assertion/,
    );
  });
});
