import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  archivedTaskDir,
  COMPLETE_LOG,
  newTaskState,
  type Store,
  SwitchyardError,
  type TaskState,
  taskDir,
} from '@switchyard/core';

/**
 * `switchyard resolve <task> --done`: a person says an archive entry the dispatcher did not
 * write is complete (they archived it themselves). The dispatcher never takes a folder in
 * `agent-task/archive/` for done on its own, since an agent can put one there; this records
 * the task as done by hand (`doneBy: "hand"`), releases its claim, and lets its dependents
 * run. Returns the task's block, if it had one.
 */
export async function recordDoneByHand(
  workspace: string,
  store: Store,
  task: string,
  now: Date,
): Promise<TaskState['blocked']> {
  const archived = archivedTaskDir(workspace, task);
  const where = relative(workspace, archived);
  if (existsSync(taskDir(workspace, task)))
    throw new SwitchyardError(
      'SY_USAGE',
      `Task ${task} is still active; --done is for archived tasks.`,
      {
        file: relative(workspace, taskDir(workspace, task)),
        hint: `move the folder to ${where} with its ${COMPLETE_LOG} first, or let \`switchyard run\` finish it`,
      },
    );
  if (!existsSync(join(archived, COMPLETE_LOG)))
    throw new SwitchyardError('SY_USAGE', `Task ${task} has no ${COMPLETE_LOG} in the archive.`, {
      file: join(where, COMPLETE_LOG),
      hint: `a task is recorded done by hand only from ${where} with its ${COMPLETE_LOG}; move the folder back under agent-task/${task.split('/')[0]}/ to run it instead`,
    });
  const stored = await store.tasks.get(task);
  const state = stored?.value ?? newTaskState(task, now);
  if (state.phase === 'done')
    throw new SwitchyardError('SY_USAGE', `Task ${task} is already recorded as done.`, {
      hint: '`switchyard status` shows what is left to do.',
    });
  // Its agent may still run (a dispatcher died): a run settles it first, else it is orphaned.
  if (state.attempts.some((a) => a.status !== 'finished'))
    throw new SwitchyardError('SY_USAGE', `Task ${task} has an attempt that was not settled.`, {
      file: store.tasks.locate(task),
      hint: `run \`switchyard run\` first: it waits for that attempt and then reports ${task} as archived without the dispatcher's record; then resolve it --done`,
    });
  const blocked = state.blocked;
  state.phase = 'done';
  state.doneBy = 'hand';
  delete state.blocked;
  delete state.notBefore;
  await store.tasks.put(state, { expected: stored?.version ?? 0 });
  await store.claims.release(task);
  return blocked;
}
