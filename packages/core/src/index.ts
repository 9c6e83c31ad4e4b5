export * from './errors.js';
export * from './plugins/index.js';
