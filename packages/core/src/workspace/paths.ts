import { join } from 'node:path';
import { reviewFileOf } from '../lifecycle/stages.js';
import type { TaskId } from '../task/types.js';

// The workspace's on-disk layout is a contract, so it stays in core: the task loader (tasks),
// the file store and its light read entry (store-fs), the engine and the CLI all agree on it.
// It could not move up to tasks: the store's read entry must not load a root entry.

/** The task tree under the workspace root. */
export const AGENT_TASK_DIR = 'agent-task';
/** Archive group name: `agent-task/archive/<group>/<task>/`. */
export const ARCHIVE_DIR = 'archive';
/** Dispatcher state directory name: `agent-task/.switchyard/`. */
export const STATE_DIR = '.switchyard';
/** Folder of the sessions under the state dir. */
export const SESSIONS_DIR = 'sessions';
/** A session's monitor record, in its session folder. */
export const MONITOR_FILE = 'monitor-server.json';
/** File that marks an archived task as complete. */
export const COMPLETE_LOG = 'complete.log';
/** The first plan of a task; follow-ups are `PLAN-2.md`, `PLAN-3.md`, … */
export const PLAN_FILE = 'PLAN.md';

/** `<workspace>/agent-task`. */
export function agentTaskDir(workspace: string): string {
  return join(workspace, AGENT_TASK_DIR);
}

/** `<workspace>/agent-task/.switchyard`: all dispatcher state (claims, attempts, events). */
export function stateDir(workspace: string): string {
  return join(workspace, AGENT_TASK_DIR, STATE_DIR);
}

/** `<workspace>/agent-task/<group>/<task>`. */
export function taskDir(workspace: string, id: TaskId): string {
  return join(workspace, AGENT_TASK_DIR, id);
}

/** `<workspace>/agent-task/archive/<group>/<task>`. */
export function archivedTaskDir(workspace: string, id: TaskId): string {
  return join(workspace, AGENT_TASK_DIR, ARCHIVE_DIR, id);
}

/** File name of plan loop `n` (1 = `PLAN.md`). */
export function planFileName(loop: number): string {
  return loop <= 1 ? PLAN_FILE : `PLAN-${loop}.md`;
}

/** File name of the review of plan loop `n` (the review stage's, from the lifecycle's stages). */
export function reviewFileName(loop: number): string {
  return reviewFileOf('review', loop);
}

/** The plan loop of a plan file name (`PLAN.md` = 1, `PLAN-3.md` = 3), or undefined. */
export function planLoopOf(name: string): number | undefined {
  if (name === PLAN_FILE) return 1;
  const m = /^PLAN-([1-9]\d*)\.md$/.exec(name);
  return m && Number(m[1]) >= 2 ? Number(m[1]) : undefined;
}

/** The loop number of a review file name (`CODE_REVIEW-2.md` = 2), or undefined. */
export function reviewLoopOf(name: string): number | undefined {
  const m = /^CODE_REVIEW-([1-9]\d*)\.md$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
