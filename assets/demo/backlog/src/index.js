// The tally library: one export line per module, added by the task that writes it.
export { tokenize } from './tokenize.js';
