import { describe, expect, it } from 'vitest';
import { type ProjectGate, projectGateSchema, testGateOf } from './gate-schema.js';
import { refuseUnjudgeableTests, testsRequiredProblem } from './tests-required.js';

const gate = (input: Record<string, unknown>): ProjectGate => projectGateSchema.parse(input);
const task = {
  testsRequired: true,
  testsRequiredAt: { file: 'agent-task/g/t/PLAN.md', line: 3 },
};

describe('tests: required without a definition of done', () => {
  it('is refused when nothing could judge the tests: file, line and what to do', () => {
    expect(
      testsRequiredProblem(task, [gate({ name: 'lint', command: ['npm', 'run', 'lint'] })]),
    ).toMatchObject({
      code: 'SY_PLAN_INVALID',
      file: 'agent-task/g/t/PLAN.md',
      line: 3,
      severity: 'error',
      hint: expect.stringMatching(/Definition of Done.*test gate.*gates/),
    });
    const loaded = { ...task, problems: [], valid: true };
    refuseUnjudgeableTests(loaded, []);
    expect(loaded.valid).toBe(false);
    expect(loaded.problems).toHaveLength(1);
  });

  it('runs on the project test gate, or on its definition of done', () => {
    const named = gate({ name: 'test', command: ['npm', 'test'] });
    expect(testsRequiredProblem(task, [named])).toBeUndefined();
    expect(testsRequiredProblem({ ...task, definitionOfDone: {} }, [])).toBeUndefined();
    expect(testsRequiredProblem({ testsRequired: false }, [])).toBeUndefined();
  });

  it('knows the test gate: marked `tests: true`, else named test/tests, and only a task gate', () => {
    const marked = gate({ name: 'unit', command: ['x'], tests: true });
    const named = gate({ name: 'tests', command: ['y'] });
    expect(testGateOf([named, marked])?.name).toBe('unit');
    expect(testGateOf([named])?.name).toBe('tests');
    expect(testGateOf([gate({ name: 'test', command: ['z'], on: 'source' })])).toBeUndefined();
  });
});
