export * from './work-log.js';
