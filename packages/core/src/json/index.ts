export * from './json-chunks.js';
