export * from './environment.js';
export * from './heartbeat.js';
export * from './layout.js';
export * from './locator.js';
export * from './record-classification.js';
export * from './stream-log.js';
export * from './template.js';
export * from './workspace-identity.js';
