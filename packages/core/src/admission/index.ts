export * from './admit.js';
export * from './collisions.js';
export { admissionTaskOf, claimKeys, type TaskViewSource } from './task-view.js';
