export * from './run-dispatcher.js';
export { judgeGate } from './stage-gate.js';
export { DEFAULT_MAX_PLAN_LOOPS } from './stage-review.js';
export * from './types.js';
