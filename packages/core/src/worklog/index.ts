export * from './work-log-row.js';
