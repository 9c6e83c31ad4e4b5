export * from './build-evidence.js';
export * from './classify-evidence.js';
export { httpStatusesIn, isObjectDumpLine, isStackFrame } from './error-evidence.js';
export * from './evidence-collector.js';
export * from './json-line.js';
export * from './line-framer.js';
export * from './retry-after.js';
export * from './tail-buffer.js';
export * from './terminal-event.js';
