import type { TaskId } from '@switchyard/core';
import { openStateStore } from '@switchyard/store-fs';
import type { IsolationLayout } from './layout.js';

/**
 * Whether the task is blocked right now, by its own state (not by its worktree record: a
 * retried task is active again before its next stage re-activates the record). A task
 * without a state (its folder and state were removed) is not running either: true. A state
 * that cannot be read is answered false, so nothing is removed on a guess.
 */
export function isBlockedNow(layout: IsolationLayout, taskId: TaskId): boolean {
  try {
    const state = openStateStore(layout.stateDir).read(taskId);
    return state === undefined || state.blocked !== undefined;
  } catch {
    return false;
  }
}
