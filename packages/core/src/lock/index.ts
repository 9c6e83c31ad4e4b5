export * from './workspace-lock.js';
