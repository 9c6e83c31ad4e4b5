import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { materializePlan, validateOrchestratePlan } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { gitWorkspace, taskCommits } from '../isolation/git-workspace.js';
import { Workspace } from './helpers.js';

const SEED = join(import.meta.dirname, '../fixtures/seed-003');
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const CONTRACT =
  'apply_to_source: true\n    commit_on_success: true\n    rollback_on_failure: true';

/** The workspace's session folders (agent-task/.switchyard/sessions/<id>/). */
function sessions(ws: Workspace): string[] {
  const dir = ws.path('agent-task/.switchyard/sessions');
  return readdirSync(dir).sort();
}

// The run with real git and worktrees is a spawned `switchyard run`; the other commands run the
// CLI's own entry in this process (test/engine/cli-in-process.ts), their agents still processes.
describe('seed 003 example plans (test/fixtures/seed-003)', { timeout: 120_000 }, () => {
  it('validate and dry-run in a git repository: no `files` needed under worktree isolation', async () => {
    const ws = gitWorkspace({ 'README.md': 'seed\n' });
    ws.catalog({ cx: { agent: 'codex', scenario: {} }, a: { scenario: {} } }, ['a', 'cx']);
    for (const f of ['tasks.yaml', 'tasks.md']) copyFileSync(join(SEED, f), ws.path(f));
    const yaml = await runInProcess(ws, [ws.path('tasks.yaml'), '--dry-run', '--json']);
    expect(yaml.code, yaml.stdout + yaml.stderr).toBe(0);
    const report = JSON.parse(yaml.stdout);
    expect(report.plan).toMatchObject({ id: 'tasks', title: 'Feature Name', max_concurrency: 1 });
    expect(report.summary).toMatchObject({ tasks: 1, errors: 0 });
    const [task] = report.tasks;
    expect(task).toMatchObject({
      id: '1',
      lane: '0',
      files: [],
      any_write_set: true,
      apply: 'patch',
    });
    // `backend: "codex"` is an agent name: the route's first worker candidate it serves.
    expect(task.stages[0]).toMatchObject({ stage: 'worker', target: 'cx', source: 'task-backend' });
    expect(task.definition_of_done).toMatchObject({
      command: 'uv run pytest tests/ -q',
      note: 'All tests pass',
    });
    const md = await runInProcess(ws, [ws.path('tasks.md'), '--dry-run', '--json']);
    expect(md.code, md.stdout + md.stderr).toBe(0);
    expect(JSON.parse(md.stdout).tasks[0]).toMatchObject({ id: '1', any_write_set: true });
    expect(ws.exists('agent-task/tasks')).toBe(false);
  });

  it('outside git (isolation "none") a task without files is refused: task, line, column, what to do', async () => {
    const ws = new Workspace();
    ws.catalog({ cx: { agent: 'codex', scenario: {} } });
    copyFileSync(join(SEED, 'tasks.yaml'), ws.path('tasks.yaml'));
    const result = await runInProcess(ws, [ws.path('tasks.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /tasks\.yaml:12:5: task "1" has no `files` \(its write set\), which only worktree isolation allows/,
    );
    expect(result.stderr).toContain('add `files: [src/a.ts]`');
    expect(result.stderr).toContain('run in a git repository');
    expect(ws.exists('agent-task/tasks')).toBe(false);
  });
});

describe('plan tasks without `files` under worktree isolation', { timeout: 180_000 }, () => {
  it('may change any file of their worktree; take no claim; land their commits', async () => {
    const ws = gitWorkspace({ 'README.md': 'hello\n' });
    const work = (task: string, files: string[]) => ({
      when: { role: 'worker', task: `free/${task}` },
      steps: [
        ...files.map((path) => ({ write: { path, content: `${task}\n` } })),
        { fillChecklist: true },
      ],
    });
    ws.catalog({
      a: {
        scenario: {
          cases: [
            approve,
            work('one', ['src/one.txt', 'docs/deep/one.md']),
            work('two', ['src/two.txt']),
          ],
        },
      },
    });
    writeFileSync(
      ws.path('plan.yaml'),
      `version: 1
kind: orchestrate-plan
metadata: { id: free, title: Free }
tasks:
  - id: one
    title: One
    ${CONTRACT}
  - id: two
    title: Two
    ${CONTRACT}
`,
    );
    const result = await ws.run([ws.path('plan.yaml')]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(ws.read('src/one.txt')).toBe('one\n');
    expect(ws.read('docs/deep/one.md')).toBe('one\n');
    expect(ws.read('src/two.txt')).toBe('two\n');
    expect(
      taskCommits(ws)
        .map((c) => c.task)
        .sort(),
    ).toEqual(['free/one', 'free/two']);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'task.waiting' && e.reason === 'claim')).toEqual([]);
    expect(
      events.filter((e) => e.type === 'task.isolation' && e.step === 'writeset-violation'),
    ).toEqual([]);
    expect(ws.read('agent-task/archive/free/one/PLAN.md')).toContain('write_set: any');
  });

  it('a PLAN.md saying `write_set: any` is blocked before any agent runs when the run has no isolation', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fillChecklist: true }] } } });
    mkdirSync(ws.path('agent-task/g/free'), { recursive: true });
    writeFileSync(
      ws.path('agent-task/g/free/PLAN.md'),
      '---\nroute: cloud-G01\nwrite_set: any\n---\n# Free\n\n## Implementation Checklist\n\n- [ ] anything\n',
    );
    const result = await runInProcess(ws, []);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'attempt.started')).toEqual([]);
    const blocked = events.find((e) => e.type === 'task.blocked' && e.task === 'g/free');
    expect(String(blocked?.reason)).toContain('`write_set: any`, which needs worktree isolation');
  });
});

describe('complexity and risk of a plan task', { timeout: 120_000 }, () => {
  it("reach PLAN.md; without an explicit route the config's routing picks it", async () => {
    const ws = new Workspace();
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      routing: { complexity: { complex: 'cloud-G02' }, risk: { high: { review: 'red-team' } } },
    });
    ws.catalog({ a: { scenario: {} } });
    writeFileSync(
      ws.path('plan.yaml'),
      `version: 1
kind: orchestrate-plan
metadata: { id: nature, title: Nature }
tasks:
  - { id: hard, title: Hard, complexity: complex, risk: high, files: [src/h.txt] }
  - { id: pinned, title: Pinned, complexity: complex, route: cloud-G07, files: [src/p.txt] }
`,
    );
    // High risk asks for a red-team review, which needs another agent family than the
    // worker's: with claude-code targets only, the dry run says so before anything is paid.
    const infeasible = await runInProcess(ws, [ws.path('plan.yaml'), '--dry-run', '--json']);
    expect(infeasible.code, infeasible.stdout + infeasible.stderr).toBe(2);
    expect(JSON.parse(infeasible.stdout).problems).toMatchObject([
      {
        severity: 'error',
        line: 5,
        message: expect.stringContaining(
          'task "hard" (risk: high) needs a red-team review by another agent family than its worker\'s (a: claude-code)',
        ),
      },
    ]);
    ws.catalog({ a: { scenario: {} }, cx: { agent: 'codex', scenario: {} } }, ['a'], ['a', 'cx']);
    const dry = await runInProcess(ws, [ws.path('plan.yaml'), '--dry-run', '--json']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    const [hard, pinned] = JSON.parse(dry.stdout).tasks;
    expect(hard).toMatchObject({
      route: 'cloud-G02',
      complexity: 'complex',
      risk: 'high',
      route_why: expect.stringContaining('routing.complexity.complex'),
      red_team: { target: 'cx', candidates: ['cx'] },
    });
    expect(pinned).toMatchObject({ route: 'cloud-G07', complexity: 'complex' });
    // The engine reads the generated PLAN.md like a hand-written one: the config's route and
    // the red-team review high risk asks for.
    const plan = validateOrchestratePlan(readFileSync(ws.path('plan.yaml'), 'utf8'), {
      file: 'plan.yaml',
    });
    expect(materializePlan(ws.dir, plan).problems).toEqual([]);
    const engine = await runInProcess(ws, ['--dry-run', '--json']);
    expect(engine.code, engine.stdout + engine.stderr).toBe(0);
    const byId = (id: string) =>
      JSON.parse(engine.stdout).tasks.find((t: { id: string }) => t.id === id);
    expect(byId('nature/hard')).toMatchObject({
      route: 'cloud-G02',
      review: 'red-team',
      route_reason: expect.stringContaining('complexity: complex → cloud-G02'),
      stages: {
        worker: { selected: 'a' },
        review: { selected: 'cx', not_worker: 'a' },
        redteam: { selected: 'cx' },
      },
    });
    expect(byId('nature/pinned')).toMatchObject({ route: 'cloud-G07' });
  });
});

describe('execution.max_concurrency', { timeout: 180_000 }, () => {
  it('caps the run: never more attempts at once than it says, even with a larger --max-parallel', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    const tasks = ['x', 'y', 'z']
      .map((id) => `  - { id: ${id}, title: ${id}, files: [src/${id}.txt] }`)
      .join('\n');
    writeFileSync(
      ws.path('plan.yaml'),
      `version: 1\nkind: orchestrate-plan\nmetadata: { id: cap, title: Cap }\nexecution: { max_concurrency: 1 }\ntasks:\n${tasks}\n`,
    );
    const result = await runInProcess(ws, [ws.path('plan.yaml'), '--max-parallel', '3']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    let running = 0;
    let most = 0;
    for (const e of ws.events()) {
      if (e.type === 'attempt.started') running += 1;
      if (e.type === 'attempt.finished') running -= 1;
      most = Math.max(most, running);
    }
    expect(most).toBe(1);
    expect(ws.events().filter((e) => e.type === 'task.archived')).toHaveLength(3);
  });
});

describe('run plan.yaml: options given with a plan', { timeout: 120_000 }, () => {
  const PLAN = `version: 1
kind: orchestrate-plan
metadata: { id: rel, title: Rel }
tasks:
  - { id: "1", title: One, files: [src/1.txt] }
`;
  it('--with keeps every other option; a different --task-group or a plan-less flag is refused', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: {} }, b: { scenario: {} } });
    writeFileSync(ws.path('plan.yaml'), PLAN);
    const ok = await runInProcess(ws, [
      ws.path('plan.yaml'),
      '--with',
      'b',
      '--task-group',
      'rel',
      '--patch-only',
      '--dry-run',
      '--json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      with: 'b',
      patch_only: true,
      summary: { errors: 0 },
    });
    const other = await runInProcess(ws, [
      ws.path('plan.yaml'),
      'with',
      'b',
      '--task-group',
      'other',
      '--dry-run',
    ]);
    expect(other.code).toBe(2);
    expect(other.stdout).toContain(
      '--task-group other disagrees with the plan, which runs its own group agent-task/rel/',
    );
    const live = await runInProcess(ws, [
      ws.path('plan.yaml'),
      '--with',
      'b',
      '--task-group',
      'other',
    ]);
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('--task-group other disagrees with the plan');
    expect(ws.exists('agent-task/rel')).toBe(false);
    // (--review-plans is what a YAML plan run does anyway: its review is advisory.)
    for (const flag of [['--validate-plan', 'x/PLAN.md']]) {
      const refused = await cli([
        'run',
        '--workspace',
        ws.dir,
        ws.path('plan.yaml'),
        'with',
        'b',
        ...flag,
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${flag[0]} does not apply to a YAML plan`);
    }
  });
});

describe('sessions of a YAML plan keep the plan as run', { timeout: 180_000 }, () => {
  it('plan.json holds the plan; resume runs the stored plan and reports an edited or deleted file', async () => {
    const ws = new Workspace();
    // Task 1 blocks at once (rejected credentials), so task 2 never starts: a resumable session.
    ws.catalog({ a: { scenario: { steps: [{ fault: 'auth' }] } } });
    const plan = `version: 1
kind: orchestrate-plan
metadata: { id: kept, title: Kept }
execution: { max_concurrency: 1 }
tasks:
  - { id: "1", title: First, files: [src/1.txt] }
  - { id: "2", title: Second, depends_on: ["1"], files: [src/2.txt] }
`;
    writeFileSync(ws.path('plan.yaml'), plan);
    const first = await runInProcess(ws, [ws.path('plan.yaml')]);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const [id] = sessions(ws);
    const stored = JSON.parse(
      readFileSync(ws.path('agent-task/.switchyard/sessions', id as string, 'plan.json'), 'utf8'),
    );
    expect(stored.yamlPlan).toMatchObject({
      file: ws.path('plan.yaml'),
      source: plan,
      parsed: {
        planId: 'kept',
        maxConcurrency: 1,
        tasks: [{ id: '1' }, { id: '2', title: 'Second' }],
      },
    });
    expect(stored.yamlPlan.sha256).toMatch(/^[0-9a-f]{64}$/);

    // Edited after the session started: reported; the stored plan is what resume runs
    // (task 2, not started, is written again from it — with its old title).
    writeFileSync(ws.path('plan.yaml'), plan.replace('title: Second', 'title: Second, edited'));
    rmSync(ws.path('agent-task/kept/2'), { recursive: true });
    const resume = () => cli(['resume', '--workspace', ws.dir]);
    const edited = await resume();
    expect(edited.code, edited.stdout + edited.stderr).toBe(3);
    expect(edited.stderr).toContain(
      `the plan ${ws.path('plan.yaml')} was edited after session ${id} started; resuming with the plan stored in the session`,
    );
    expect(edited.stdout).toContain(`session ${id} (resumed)`);
    expect(ws.read('agent-task/kept/2/PLAN.md')).toContain('# Second\n');
    expect(ws.read('agent-task/kept/2/PLAN.md')).not.toContain('edited');

    rmSync(ws.path('plan.yaml'));
    const deleted = await resume();
    expect(deleted.code, deleted.stdout + deleted.stderr).toBe(3);
    expect(deleted.stderr).toContain(`was deleted after session ${id} started`);
    expect(sessions(ws)).toEqual([id]);
  });
});
