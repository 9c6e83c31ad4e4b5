export * from './closure.js';
export * from './task-graph.js';
