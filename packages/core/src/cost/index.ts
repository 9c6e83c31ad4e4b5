export { type AttemptUsage, attemptUsageSchema } from './usage.js';
