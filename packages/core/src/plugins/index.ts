export * from './define.js';
export * from './failure-class.js';
export * from './loader.js';
export * from './plugin-schema.js';
export * from './plugin-set.js';
export * from './registry.js';
export * from './runner-types.js';
export * from './types.js';
