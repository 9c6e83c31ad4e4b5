export * from './load.js';
export * from './paths.js';
export * from './plan-cache.js';
export { PARALLEL_MIN_TASKS, type ParallelParseOptions } from './plan-pool.js';
export * from './root.js';
export * from './scan.js';
