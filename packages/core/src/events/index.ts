export * from './event-bus.js';
export * from './event-schema.js';
