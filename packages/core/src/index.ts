export * from './errors.js';
export * from './plugins/index.js';
export * from './process/index.js';
