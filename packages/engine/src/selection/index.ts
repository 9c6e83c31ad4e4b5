export * from './decide.js';
export * from './on-failure.js';
export * from './park.js';
