export * from './fake-agent/index.js';
