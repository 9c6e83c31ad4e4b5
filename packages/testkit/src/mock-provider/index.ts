export * from './faults.js';
export * from './server.js';
export type { MockToolCall } from './tool-calls.js';
