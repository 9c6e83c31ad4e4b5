export * from './paths.js';
export * from './root.js';
