export * from './state-schema.js';
