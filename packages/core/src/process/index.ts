export * from './process-age.js';
export * from './process-identity.js';
