import type { IsolationMode } from '@switchyard/config';
import { SwitchyardError } from '@switchyard/core';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * The isolation a task works under: the one it started with, kept until it is archived. A
 * task whose worker began in the shared workspace has its changes there, so it finishes
 * there even when the workspace has become a git repository meanwhile (an empty worktree
 * mid-way would lose them). A state written before the mode was recorded tells by itself:
 * a worktree recorded → "worktree"; attempts without one → "none". A task that has not
 * started takes the run's mode.
 */
export function taskIsolationMode(ctx: DispatchContext, rt: TaskRuntime): IsolationMode {
  const state = rt.state;
  if (state.isolationMode) return state.isolationMode;
  if (state.isolation) return 'worktree';
  if (state.attempts.length > 0) return 'none';
  return ctx.options.isolation ? 'worktree' : 'none';
}

/**
 * A task that started in its worktree cannot finish in a run without worktrees: its changes
 * are on its branch, and only the apply stage lands them. It is blocked, never archived with
 * its work left behind.
 */
export function worktreeTaskWithoutIsolation(rt: TaskRuntime): SwitchyardError {
  const facts = rt.state.isolation;
  return new SwitchyardError(
    'SY_CONFIG_INVALID',
    `task ${rt.id} started in its own worktree${facts ? ` (${facts.path}, branch ${facts.branch})` : ''}, but this run has isolation "none"`,
    {
      hint: 'remove `isolation: "none"` from switchyard.config.json (or set "worktree") and run `switchyard retry` for the task: it finishes in its worktree and lands as a commit',
    },
  );
}
