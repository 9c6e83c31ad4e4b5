import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { archivedTaskDir } from '@switchyard/core';
import { unrecordedReason } from '../checks/completion-record.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * True (and the task blocked) when the task's folder left `agent-task/<group>/` while the
 * dispatcher had not archived it: moved into the archive (by a person, or by an agent, which
 * has the folder's path) or deleted. Nothing more is paid for it; an archive entry made that
 * way is reported, never counted as done.
 */
export function blockedForGoneFolder(ctx: DispatchContext, rt: TaskRuntime): boolean {
  if (existsSync(rt.task.dir)) return false;
  const archived = archivedTaskDir(ctx.workspace, rt.id);
  const inArchive = existsSync(archived);
  blockTask(ctx, rt, {
    stage: rt.state.phase,
    reason: inArchive
      ? unrecordedReason(rt.id, relative(ctx.workspace, archived))
      : `the task folder agent-task/${rt.id}/ is gone`,
    evidence: [
      `the folder left agent-task/${rt.group}/ in phase ${rt.state.phase}, before the dispatcher archived the task`,
    ],
  });
  return true;
}
