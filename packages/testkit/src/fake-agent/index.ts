export * from './agent-io.js';
export * from './cli.js';
export * from './faults.js';
export * from './formats.js';
export * from './scenario.js';
export * from './state.js';
export * from './steps.js';
