export * from './define.js';
export * from './failure-class.js';
export * from './plugin-schema.js';
export * from './runner-types.js';
export * from './types.js';
