import type { Problem } from '@switchyard/core';
import { type ProjectGate, testGateOf } from './gate-schema.js';

/** What the rule reads of a task. */
export interface TestsPolicyTask {
  testsRequired?: boolean;
  testsRequiredAt?: { file: string; line?: number };
  definitionOfDone?: unknown;
  runner?: 'local' | 'agent';
}

/**
 * `tests: required` needs a command whose output shows the tests ran: the plan's definition
 * of done, or the project's test gate (config `gates`). A plan with neither is refused before
 * anything runs, since no check could ever judge its tests.
 */
export function testsRequiredProblem(
  task: TestsPolicyTask,
  gates: readonly ProjectGate[],
): Problem | undefined {
  if (!task.testsRequired || task.definitionOfDone !== undefined || testGateOf(gates))
    return undefined;
  return {
    code: 'SY_PLAN_INVALID',
    message:
      '`tests: required` needs a test run to judge, but the plan has no Definition of Done and the project config has no test gate',
    ...(task.testsRequiredAt?.file ? { file: task.testsRequiredAt.file } : {}),
    ...(task.testsRequiredAt?.line ? { line: task.testsRequiredAt.line } : {}),
    hint: 'add a `## Definition of Done` whose command runs the tests, or a test gate to switchyard.config.json (`gates: [{ "name": "test", "command": ["npm", "test"] }]`), or drop `tests: required`',
    severity: 'error',
  };
}

/** Adds the {@link testsRequiredProblem} of a loaded task to its problems (it cannot run). */
export function refuseUnjudgeableTests(
  task: TestsPolicyTask & { problems: Problem[]; valid: boolean },
  gates: readonly ProjectGate[],
): void {
  const problem = testsRequiredProblem(task, gates);
  if (!problem) return;
  task.problems.push(problem);
  task.valid = false;
}
