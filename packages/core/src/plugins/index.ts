export * from './failure-class.js';
export * from './types.js';
