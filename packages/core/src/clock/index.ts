export { type Clock, stopwatch, systemClock } from './clock.js';
export { persistedWaitLeftMs, type WaitBound, waitBoundOf } from './persisted-wait.js';
