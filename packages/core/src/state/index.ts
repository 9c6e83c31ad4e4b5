export * from './atomic-file.js';
export * from './state-schema.js';
