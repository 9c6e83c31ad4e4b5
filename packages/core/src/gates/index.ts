export { gateResultLine, type ProjectGateResult, projectGateResultSchema } from './gate-result.js';
export {
  type ProjectGate,
  type ProjectGateInput,
  projectGateSchema,
  testGateOf,
} from './gate-schema.js';
export {
  refuseUnjudgeableTests,
  type TestsPolicyTask,
  testsRequiredProblem,
} from './tests-required.js';
