export * from './admit.js';
export * from './collisions.js';
export { admissionTaskOf, claimKeys, slotFreeTasks, type TaskViewSource } from './task-view.js';
export { worktreeBytes } from './worktree-bytes.js';
