export * from './open-rows.js';
export * from './work-log-row.js';
