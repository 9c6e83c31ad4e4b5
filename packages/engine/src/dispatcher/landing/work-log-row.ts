import { join, relative } from 'node:path';
import { type AttemptRecord, planFileName, type WorkLogRow } from '@switchyard/core';
import { reviewFileOf } from '../../lifecycle/index.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** The work-log columns of an agent attempt, without kind, time and result. */
export type AttemptRowFields = Omit<WorkLogRow, 'kind' | 'time' | 'result'>;

/**
 * An attempt's row: the task artifact it is about (the review file for a review, else the
 * plan of its loop) and its ordinal among the attempts of the same stage and plan loop.
 */
export function attemptRowFields(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
  agentModel: string,
): AttemptRowFields {
  const sameStage = rt.state.attempts.filter(
    (a) => a.role === record.role && a.planLoop === record.planLoop,
  );
  const index = sameStage.indexOf(record);
  return {
    task: rt.id,
    artifact: reviewFileOf(record.role, record.planLoop) ?? planFileName(record.planLoop),
    planLoop: record.planLoop,
    maxPlanLoops: maxPlanLoopsOf(rt),
    role: record.role,
    attempt: String(index < 0 ? sameStage.length + 1 : index + 1),
    agentModel,
    locator: relative(ctx.workspace, join(record.attemptDir, 'locator.json')),
  };
}
