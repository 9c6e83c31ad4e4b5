export * from './environment.js';
export * from './heartbeat.js';
export * from './layout.js';
export * from './liveness.js';
export * from './locator-file.js';
export {
  createLocator,
  finalizeLocator,
  type LocatorExit,
  type LocatorLaunch,
  recordLocatorExit,
} from './locator-writer.js';
export * from './prompt-delivery.js';
export * from './record-classification.js';
export * from './stream-log.js';
export * from './template.js';
export * from './workspace-identity.js';
