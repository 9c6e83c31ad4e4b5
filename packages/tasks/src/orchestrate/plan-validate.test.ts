import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogSchema } from '@switchyard/catalog';
import { validCatalog } from '@switchyard/catalog/test-catalogs';
import { describe, expect, it } from 'vitest';
import { parsePlan } from '../task/parse-plan.js';
import { materializePlan, renderTaskPlan } from './plan-materialize.js';
import { planTaskRoutes } from './plan-routing.js';
import { validateOrchestratePlan } from './plan-validate.js';

const catalog = () => {
  const c = validCatalog();
  c.targets['cloud-b'].agent = 'other-agent';
  return catalogSchema.parse(c);
};

const VALID = `version: 1
kind: orchestrate-plan
metadata:
  title: "Feature"
  goal: "one line"
execution:
  max_concurrency: 2
lanes:
  - id: "0"
    label: Setup
  - id: "1"
    label: Build
tasks:
  - id: "1"
    title: Install
    lane: "0"
    runner: local
    command: [node, scripts/setup.mjs]
    files: [setup.log]
  - id: "2"
    title: Write code
    lane: "1"
    runner: code-runner
    backend: other-agent
    mode: iterative
    depends_on: []
    implementation:
      - "Add the flag"
    definition_of_done:
      command: "node --test test/a.test.mjs"
      assertion: "All tests pass"
    apply_to_source: true
    commit_on_success: true
    rollback_on_failure: true
    files: [src/a.ts]
  - id: "3"
    title: Docs
    lane: "1"
    files: [README.md]
`;

const validate = (text: string, file = 'plans/feature.yaml') =>
  validateOrchestratePlan(text, { file, catalog: catalog(), now: new Date(0) });
const errors = (text: string) => validate(text).problems.filter((p) => p.severity !== 'warning');

describe('YAML plan validation (orchestrate-plan version 1)', () => {
  it('accepts a valid plan: lanes become dependencies, backends resolve, prose assertions warn', () => {
    const plan = validate(VALID);
    expect(errors(VALID)).toEqual([]);
    expect(plan.planId).toBe('feature');
    expect(plan.maxConcurrency).toBe(2);
    const [install, code, docs] = plan.tasks;
    expect(install).toMatchObject({ runner: 'local', command: ['node', 'scripts/setup.mjs'] });
    expect(code).toMatchObject({
      effectiveDependsOn: ['1'],
      target: 'cloud-b',
      apply: 'source',
      done: {
        argv: ['node', '--test', 'test/a.test.mjs'],
        assertion: { kind: 'exit-code', code: 0 },
      },
    });
    expect(docs).toMatchObject({ effectiveDependsOn: ['1'], apply: 'patch', route: 'cloud-G05' });
    expect(plan.problems).toEqual([
      expect.objectContaining({ severity: 'warning', line: 31, column: 18 }),
    ]);
  });

  it('reports every structural problem with its line and column', () => {
    const broken = VALID.replace('    mode: iterative\n', '    mode: iterative\n    colour: blue\n')
      .replace('runner: local', 'runner: scillm')
      .replace('  title: "Feature"\n', '');
    const problems = errors(broken);
    expect(problems.map((p) => [p.line, p.column, p.message])).toEqual([
      [3, 1, 'metadata: required key "title" is missing'],
      [16, 13, expect.stringContaining('tasks.0.runner: Invalid option')],
      [25, 5, 'unknown key "colour" in tasks.1'],
    ]);
    expect(problems[1]?.hint).toContain('"code-runner"');
    expect(problems[2]?.hint).toContain('allowed keys: id, title');
    expect(problems.every((p) => p.code === 'SY_YAML_PLAN_INVALID')).toBe(true);
  });

  it('schema problems and the checks across tasks arrive in one round', () => {
    const text = `version: 1
kind: orchestrate-plan
metadata:
  title: T
tasks:
  - id: a
    title: A
    depends_onn: []
  - id: b
    title: B
    depends_on: [zz, a]
  - id: c
    title: C
    runner: local
    files: [c.log]
`;
    const problems = errors(text);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [8, 'unknown key "depends_onn" in tasks.0'],
      // b is well-formed: its unknown dependency is found now, not after "a" is fixed;
      // its dependency on the malformed "a" is no problem.
      [11, 'task "b" depends on "zz", which is not a task of this plan'],
      [14, 'local task "c" has no `command`'],
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    const problems = errors('version: 1\nkind: orchestrate-plan\ntasks:\n  - id: "1\n');
    expect(problems[0]).toMatchObject({
      line: 5,
      message: expect.stringContaining('Missing closing'),
    });
  });

  it('finds unknown dependencies, cycles, later-lane dependencies and duplicate ids', () => {
    const text = `version: 1
kind: orchestrate-plan
metadata: { title: t }
lanes: [{ id: a }, { id: b }]
tasks:
  - { id: x, title: x, files: [x], depends_on: [y] }
  - { id: y, title: y, files: [y], depends_on: [x] }
  - { id: z, title: z, files: [z], depends_on: [nope], lane: a }
  - { id: w, title: w, files: [w], lane: b }
  - { id: v, title: v, files: [v], lane: a, depends_on: [w] }
  - { id: v, title: v, files: [v] }
`;
    const messages = errors(text).map((p) => `${p.line}:${p.column} ${p.message}`);
    expect(messages).toEqual([
      '11:11 task id "v" is used twice',
      '8:49 task "z" depends on "nope", which is not a task of this plan',
      expect.stringMatching(/^10:58 task "v" \(lane "a"\) depends on "w" of a later lane/),
      '6:48 dependency cycle: x -> y -> x',
      '9:5 dependency cycle: w -> v -> w',
    ]);
  });

  it('checks runners, shell, backends and the definition of done', () => {
    const text = `version: 1
kind: orchestrate-plan
metadata: { title: t }
tasks:
  - { id: a, title: a, files: [a], runner: local }
  - { id: b, title: b, files: [b], command: [ls] }
  - { id: c, title: c, files: [c], runner: local, shell: true, command: [echo, hi] }
  - { id: d, title: d, files: [d], backend: nobody }
  - id: e
    title: e
    files: [e]
    definition_of_done: { command: "npm test | tee out", assertion: "exit code 0" }
  - id: f
    title: f
    definition_of_done: { command: [npm, test], assertion: "stdout matches /(/" }
`;
    const messages = errors(text).map((p) => `${p.line} ${p.message}`);
    expect(messages).toEqual([
      '5 local task "a" has no `command`',
      '6 `command` is only for `runner: local` (task "b" runs an agent)',
      '7 task "c" has `shell: true`: `command` must be one shell script string',
      '8 backend "nobody" is neither a target id nor an agent of the catalog',
      '12 definition_of_done.command: shell operator "|" outside quotes',
      expect.stringMatching(/^15 definition_of_done.assertion: invalid regular expression/),
    ]);
    // Under isolation "none" an agent task must list its files: the error names task, line, column.
    const unisolated = validateOrchestratePlan(text, {
      file: 'p.yaml',
      catalog: catalog(),
      isolation: 'none',
    }).problems.filter((p) => p.message.includes('has no `files`'));
    expect(unisolated).toEqual([
      expect.objectContaining({
        code: 'SY_YAML_PLAN_INVALID',
        file: 'p.yaml',
        line: 13,
        column: 5,
        severity: 'error',
        message:
          'task "f" has no `files` (its write set), which only worktree isolation allows; this run has isolation "none"',
        hint: expect.stringContaining('add `files: [src/a.ts]`'),
      }),
    ]);
    expect(unisolated[0]?.hint).toContain('run in a git repository');
    // A local command runs in the source workspace: it needs its files under any isolation.
    const local = errors(
      'version: 1\nkind: orchestrate-plan\nmetadata: { title: t }\ntasks:\n  - { id: s, title: s, runner: local, command: [ls] }\n',
    );
    expect(local.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '5:5 local task "s" has no `files` (the files its command writes)',
    ]);
  });

  it('a task without files under worktree isolation renders `write_set: any`, read back with no write set', () => {
    const text = `version: 1
kind: orchestrate-plan
metadata: { title: t }
tasks:
  - { id: free, title: Free }
`;
    expect(errors(text)).toEqual([]);
    const plan = validate(text);
    const [free] = plan.tasks;
    expect(free).toMatchObject({ anyWriteSet: true });
    const rendered = renderTaskPlan(free!, plan);
    expect(rendered).toContain('write_set: any');
    const parsed = parsePlan(rendered, { file: 'PLAN.md' });
    expect(parsed.problems).toEqual([]);
    expect(parsed.frontMatter.writeSet).toBe('any');
    expect(parsed.writeSet).toEqual([]);
    // A listed write set beside `write_set: any` contradicts it.
    const both = parsePlan(
      rendered.replace(
        /## Modified Files Summary\n\n.*\n/,
        '## Modified Files Summary\n\n- src/a.ts\n',
      ),
      { file: 'PLAN.md' },
    );
    expect(both.problems.map((p) => p.message)).toEqual([
      '"## Modified Files Summary" lists files, but the front matter says `write_set: any`',
    ]);
  });

  it('passes complexity and risk to PLAN.md; without an explicit route the config routing decides', () => {
    const text = `version: 1
kind: orchestrate-plan
metadata: { title: t }
tasks:
  - { id: hard, title: Hard, complexity: complex, risk: high, files: [a] }
  - { id: pinned, title: Pinned, complexity: routine, route: local-G02, files: [b] }
  - { id: plain, title: Plain, files: [c] }
  - { id: bad, title: Bad, complexity: huge, files: [d] }
`;
    expect(errors(text).map((p) => `${p.line} ${p.message}`)).toEqual([
      expect.stringMatching(/^8 tasks\.3\.complexity: Invalid option/),
    ]);
    const ok = text.replace(/ {2}- \{ id: bad.*\n/, '');
    const plan = validateOrchestratePlan(ok, {
      file: 'p.yaml',
      routing: {
        complexity: { routine: 'local-G01', standard: 'cloud-G05', complex: 'cloud-G01' },
        risk: { low: {}, high: { review: 'red-team' } },
      },
    });
    const [hard, pinned, plain] = plan.tasks;
    expect(hard).toMatchObject({
      route: 'cloud-G01',
      routeExplicit: false,
      complexity: 'complex',
      risk: 'high',
    });
    const hardPlan = parsePlan(renderTaskPlan(hard!, plan), { file: 'PLAN.md' });
    expect(hardPlan.problems).toEqual([]);
    expect(hardPlan.frontMatter).toMatchObject({ complexity: 'complex', risk: 'high' });
    expect(hardPlan.frontMatter.route).toBeUndefined();
    const pinnedPlan = parsePlan(renderTaskPlan(pinned!, plan), { file: 'PLAN.md' });
    expect(pinnedPlan.frontMatter).toMatchObject({ route: 'local-G02', complexity: 'routine' });
    expect(parsePlan(renderTaskPlan(plain!, plan), { file: 'PLAN.md' }).frontMatter).toMatchObject({
      route: 'cloud-G05',
    });
  });

  it('routing precedence: task backend > with <target> > the route first candidate', () => {
    const plan = validate(VALID);
    const cat = catalog();
    const [install, code, docs] = plan.tasks;
    expect(planTaskRoutes(cat, code!, 'local-a', new Date(0))[0]).toMatchObject({
      target: 'cloud-b',
      source: 'task-backend',
      candidates: ['cloud-b', 'cloud-a'],
    });
    expect(planTaskRoutes(cat, docs!, 'local-a', new Date(0))[0]).toMatchObject({
      target: 'local-a',
      source: 'with',
    });
    expect(planTaskRoutes(cat, docs!, undefined, new Date(0))[0]).toMatchObject({
      target: 'cloud-a',
      source: 'route',
    });
    expect(planTaskRoutes(cat, install!, 'local-a', new Date(0))[0]).toMatchObject({
      target: null,
      source: 'local',
    });
  });
});

describe('YAML plan materialization', () => {
  it('renders PLAN.md files the engine reads back as the same task', () => {
    const plan = validate(VALID);
    const code = plan.tasks[1]!;
    const parsed = parsePlan(renderTaskPlan(code, plan, { patchOnly: true }), { file: 'PLAN.md' });
    expect(parsed.problems).toEqual([]);
    expect(parsed.frontMatter).toMatchObject({
      route: 'cloud-G05',
      target: 'cloud-b',
      apply: 'patch',
      dependsOn: [{ raw: '1' }],
    });
    expect(parsed.definitionOfDone?.argv).toEqual(['node', '--test', 'test/a.test.mjs']);
    expect(parsed.writeSet.map((w) => w.path)).toEqual(['src/a.ts']);
    const local = parsePlan(renderTaskPlan(plan.tasks[0]!, plan), { file: 'PLAN.md' });
    expect(local.frontMatter).toMatchObject({
      runner: 'local',
      command: ['node', 'scripts/setup.mjs'],
    });
    expect(local.problems).toEqual([]);
  });

  it('is idempotent, rewrites a task not started and refuses a changed task already started', () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-plan-'));
    const plan = validate(VALID);
    expect(materializePlan(ws, plan).tasks.map((t) => t.status)).toEqual([
      'created',
      'created',
      'created',
    ]);
    const file = join(ws, 'agent-task/feature/2/PLAN.md');
    // An agent ticking checklist items is progress, not a changed plan.
    writeFileSync(file, readFileSync(file, 'utf8').replace('- [ ]', '- [x]'));
    expect(materializePlan(ws, plan).tasks.map((t) => t.status)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    const changed = validate(VALID.replace('Add the flag', 'Add two flags'));
    expect(materializePlan(ws, changed).tasks.map((t) => t.status)).toEqual([
      'unchanged',
      'updated',
      'unchanged',
    ]);
    writeFileSync(join(ws, 'agent-task/feature/2/PLAN-2.md'), 'follow-up');
    const result = materializePlan(ws, plan);
    expect(result.tasks).toEqual([]);
    expect(result.problems[0]).toMatchObject({
      code: 'SY_YAML_PLAN_INVALID',
      line: 20,
      message: expect.stringContaining('task "2" changed in the plan but it has already started'),
    });
    expect(readFileSync(file, 'utf8')).toContain('Add two flags');
  });
});

describe('YAML plan JSON Schema', () => {
  it('the committed schema equals the one generated from zo. (regenerate: pnpm generate:schema)', async () => {
    const { assetPath } = await import('@switchyard/utils');
    const { orchestratePlanJsonSchema } = await import('./plan-schema.js');
    const committed = JSON.parse(
      readFileSync(assetPath('schema', 'orchestrate-plan.schema.json'), 'utf8'),
    );
    expect(committed).toEqual(orchestratePlanJsonSchema());
    expect(committed.additionalProperties).toBe(false);
    expect(committed.required).toEqual(['version', 'kind', 'metadata', 'tasks']);
  });
});

describe('YAML plans: hostile documents are coded problems', () => {
  it('an alias bomb is SY_YAML_PLAN_INVALID with a hint, not an internal error', () => {
    const rows = ['a', 'b', 'c', 'd', 'e', 'f'];
    const bomb = [
      'version: 1',
      'kind: orchestrate-plan',
      'metadata: { title: bomb }',
      ...rows.map(
        (name, i) =>
          `${name}: &${name} [${Array(9)
            .fill(i === 0 ? '"x"' : `*${rows[i - 1]}`)
            .join(', ')}]`,
      ),
      'tasks: []',
    ].join('\n');
    const result = validateOrchestratePlan(bomb, { file: 'plan.yaml' });
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ code: 'SY_YAML_PLAN_INVALID', file: 'plan.yaml' });
    expect(result.problems[0]?.message).toMatch(/alias/i);
  });

  it('a NUL or a lone surrogate (raw or escaped) is refused on its line, not written to disk', () => {
    // found by the fuzzer: an escaped lone surrogate became U+FFFD in PLAN.md, never matching again
    const plan = (title: string, id: string) =>
      `version: 1\nkind: orchestrate-plan\nmetadata:\n  title: t\ntasks:\n  - id: ${id}\n    title: ${title}\n    files: [a.ts]\n`;
    for (const [title, id, line] of [
      ['"\\ud800"', 'a', 7],
      ['"x\\0y"', 'a', 7],
      ['ok', '"a\\x00b"', 6],
      ['"\\udc00 low"', 'a', 7],
    ] as const) {
      const result = validateOrchestratePlan(plan(title, id), { file: 'plan.yaml' });
      expect(result.problems, title).toMatchObject([
        { code: 'SY_YAML_PLAN_INVALID', line, message: expect.stringMatching(/NUL|surrogate/) },
      ]);
    }
    expect(
      validateOrchestratePlan(plan('"\\ud83d\\ude00 pair"', 'a'), { file: 'p.yaml' }).problems,
    ).toEqual([]);
  });

  it('nesting 5,000 deep is a positioned YAML problem', () => {
    const deep = `version: 1\nkind: orchestrate-plan\nmetadata: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    const result = validateOrchestratePlan(deep, { file: 'plan.yaml' });
    expect(result.problems.length).toBeGreaterThan(0);
    expect(result.problems.every((p) => p.code === 'SY_YAML_PLAN_INVALID')).toBe(true);
    expect(result.problems[0]).toMatchObject({
      line: 3,
      message: 'YAML: lists or maps nested more than 64 levels deep',
    });
    // nested by indentation: the parser's own stack overflow, said plainly
    const blocks = Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n');
    const indented = validateOrchestratePlan(`version: 1\nmetadata:\n${blocks}x\n`, {
      file: 'plan.yaml',
    });
    expect(indented.problems[0]?.message).toBe('YAML: nested too deeply to read');
  });
});
