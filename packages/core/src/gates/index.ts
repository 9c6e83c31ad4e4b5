export { gateResultLine, type ProjectGateResult, projectGateResultSchema } from './gate-result.js';
export {
  type ProjectGate,
  type ProjectGateInput,
  projectGateSchema,
  testGateOf,
} from './gate-schema.js';
export { type GateRun, gateAsDone, type RunGatesInput, runGates } from './run-gates.js';
export { runSourceGates, type SourceGatesInput, type SourceGatesOutcome } from './source-gates.js';
export {
  refuseUnjudgeableTests,
  type TestsPolicyTask,
  testsRequiredProblem,
} from './tests-required.js';
