export * from './accept-checklist.js';
