export * from './plan-dry-run.js';
export * from './report.js';
