export * from './build-prompt.js';
export * from './templates.js';
