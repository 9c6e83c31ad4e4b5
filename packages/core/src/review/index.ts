export * from './evaluate-review.js';
export * from './parse-review.js';
