export * from './process-identity.js';
