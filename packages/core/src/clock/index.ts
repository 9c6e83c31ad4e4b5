export { type Clock, stopwatch, systemClock } from './clock.js';
