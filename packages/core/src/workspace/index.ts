export * from './load.js';
export * from './paths.js';
export * from './scan.js';
