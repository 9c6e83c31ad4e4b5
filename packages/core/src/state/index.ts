export * from './atomic-file.js';
export * from './attempt-probe.js';
export * from './read-json-file.js';
export * from './state-schema.js';
export * from './state-store.js';
