export * from './event-bus.js';
export * from './event-schema.js';
export type { StartGuard, StartRequest, StartVeto } from './start-guard.js';
