import type { TaskId, TaskStatePort } from '@switchyard/core';

/**
 * Whether the task is blocked right now, by its own state (not by its worktree record: a
 * retried task is active again before its next stage re-activates the record). A task
 * without a state (its folder and state were removed) is not running either: true. A state
 * that cannot be read is answered false, so nothing is removed on a guess.
 */
export async function isBlockedNow(tasks: TaskStatePort, taskId: TaskId): Promise<boolean> {
  try {
    const state = (await tasks.get(taskId))?.value;
    return state === undefined || state.blocked !== undefined;
  } catch {
    return false;
  }
}
