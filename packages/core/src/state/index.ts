export * from './atomic-file.js';
export * from './read-json-file.js';
export * from './state-schema.js';
