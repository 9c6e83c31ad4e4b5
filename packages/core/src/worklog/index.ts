export * from './open-rows.js';
export * from './work-log.js';
