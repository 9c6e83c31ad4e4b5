export * from './named-target.js';
