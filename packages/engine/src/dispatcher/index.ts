export { DEFAULT_MAX_PLAN_LOOPS } from './agent/stage-review.js';
export { judgeGate } from './checks/stage-gate.js';
export * from './run-dispatcher.js';
export * from './types.js';
