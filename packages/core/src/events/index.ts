export * from './event-schema.js';
