export * from './load.js';
export * from './paths.js';
export * from './plan-cache.js';
export * from './scan.js';
