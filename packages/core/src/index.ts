export * from './errors.js';
export * from './plugins/index.js';
export * from './process/index.js';
export * from './events/index.js';
export * from './lock/index.js';
export * from './evidence/index.js';
export * from './state/index.js';
export * from './worklog/index.js';
