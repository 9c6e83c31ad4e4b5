export * from './build-status.js';
export * from './gather-status.js';
export * from './status-facts.js';
export * from './status-types.js';
