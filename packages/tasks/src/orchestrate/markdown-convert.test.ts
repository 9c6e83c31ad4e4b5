import { describe, expect, it } from 'vitest';
import { convertMarkdownPlan, markdownProblem } from './markdown-convert.js';
import { validateOrchestratePlan } from './plan-validate.js';

const LEGACY = `# Feature Name

### Task 1: Set up the project
- Agent: general-purpose
- Model: sonnet
- Parallel: 0
- Dependencies: none
- Files: package.json, src/index.ts
- Create the package
- **Definition of Done**:
  - Command: uv run pytest tests/ -q
  - Assertion: All tests pass

### Task 2: Add the flag
- Agent: general-purpose
- Parallel: 1
- Dependencies: Task 1
- Files: src/flag.ts
- **Definition of Done**:
  - Command: \`node --test\`
  - Assertion: exit code 0
`;

describe('legacy markdown task files', () => {
  it('converts tasks, lanes, dependencies and the definition of done to a valid YAML plan', () => {
    const converted = convertMarkdownPlan(LEGACY, '01_TASKS.md');
    expect(converted.problems).toEqual([]);
    const plan = validateOrchestratePlan(converted.yaml, { file: '01_TASKS.md' });
    expect(plan.problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect(plan.title).toBe('Feature Name');
    expect(plan.planId).toBe('01_TASKS');
    expect(plan.tasks.map((t) => [t.id, t.lane, t.dependsOn, t.effectiveDependsOn])).toEqual([
      ['1', '0', [], []],
      ['2', '1', ['1'], ['1']],
    ]);
    expect(plan.tasks[0]).toMatchObject({
      title: 'Set up the project',
      files: ['package.json', 'src/index.ts'],
      implementation: ['Create the package'],
      done: { argv: ['uv', 'run', 'pytest', 'tests/', '-q'], note: 'All tests pass' },
    });
    expect(plan.tasks[1]?.done?.argv).toEqual(['node', '--test']);
    expect(converted.yaml).toContain('# Agent: general-purpose, Model: sonnet');
    expect(converted.yaml).toContain('depends_on: ["1"]');
  });

  it('reports problems on the markdown lines: a missing assertion, a converted task without files', () => {
    const broken = LEGACY.replace('  - Assertion: exit code 0\n', '').replace(
      '- Files: package.json, src/index.ts\n',
      '',
    );
    const converted = convertMarkdownPlan(broken, 'tasks.md');
    expect(converted.problems).toEqual([
      expect.objectContaining({
        line: 13,
        message: expect.stringContaining(
          'Task 2: the Definition of Done has a Command but no Assertion',
        ),
      }),
    ]);
    const plan = validateOrchestratePlan(converted.yaml, { file: 'tasks.md', isolation: 'none' });
    const mapped = plan.problems
      .filter((p) => p.severity !== 'warning')
      .map((p) => markdownProblem(p, converted, 'tasks.md'));
    expect(mapped).toEqual([
      expect.objectContaining({
        file: 'tasks.md',
        line: 3,
        message:
          'Task 1: task "1" has no `files` (its write set), which only worktree isolation allows; this run has isolation "none" (converted from markdown)',
      }),
    ]);
  });

  it('a file without task headings is one problem', () => {
    expect(convertMarkdownPlan('# nothing here\n', 'x.md').problems[0]).toMatchObject({
      code: 'SY_YAML_PLAN_INVALID',
      line: 1,
    });
  });
});
