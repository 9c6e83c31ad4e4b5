export * from './atomic-file.js';
export * from './attempt-probe.js';
export * from './state-schema.js';
export * from './state-store.js';
