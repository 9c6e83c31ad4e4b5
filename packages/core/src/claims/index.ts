export * from './claim-store.js';
export * from './file-mutex.js';
