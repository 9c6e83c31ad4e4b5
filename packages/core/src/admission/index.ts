export * from './admit.js';
export * from './collisions.js';
