export * from './fake-agent/index.js';
export * from './mock-provider/index.js';
