import { planFileName, SwitchyardError, type WorkLogRow } from '@switchyard/core';
import { z } from 'zod';

/** What a human can do to a run from the monitor page (the CLI's resolve/retry, and stop). */
export const HUMAN_ACTIONS = ['retry', 'skip', 'resolve', 'stop-task', 'stop-run'] as const;
export type HumanActionName = (typeof HUMAN_ACTIONS)[number];

/** One request, as the page sends it (validated before anything is done). */
export const humanActionRequestSchema = z
  .strictObject({
    action: z.enum(HUMAN_ACTIONS),
    /** `<group>/<task>`; every action but stop-run names one. */
    task: z
      .string()
      .regex(/^[^/\s]+\/[^/\s]+$/, 'a task id is <group>/<task>')
      .optional(),
    /** `resolve`: the answer to the escalation's question. */
    answer: z.enum(['retry', 'skip']).optional(),
    /** The human's words kept with the answer (resolution, event, work log). */
    note: z.string().max(2000).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.action !== 'stop-run' && !r.task)
      ctx.addIssue({ code: 'custom', path: ['task'], message: `${r.action} needs a task` });
    if (r.action === 'resolve' && !r.answer)
      ctx.addIssue({
        code: 'custom',
        path: ['answer'],
        message: 'resolve needs an answer: retry or skip',
      });
  });
export type HumanActionRequest = z.infer<typeof humanActionRequestSchema>;

/** Who acts, and through what (`monitor`). */
export interface Actor {
  by?: string;
  via: string;
}

/** What an action did, in words for the page. */
export interface HumanActionOutcome {
  action: HumanActionName;
  task?: string;
  detail: string;
}

/** The refusal of an action that does not apply now (the page shows message and hint). */
export function refused(message: string, hint: string): SwitchyardError {
  return new SwitchyardError('SY_ACTION_REFUSED', message, { hint });
}

/** The `human.action` event of an action carried out. */
export function actionEvent(request: HumanActionRequest, actor: Actor, detail: string) {
  return {
    type: 'human.action' as const,
    action: request.action,
    ...(request.task ? { task: request.task } : {}),
    ...(request.answer ? { answer: request.answer } : {}),
    ...(request.note ? { note: request.note } : {}),
    ...(actor.by ? { by: actor.by } : {}),
    via: actor.via,
    detail,
  };
}

/** The work-log row of an action on a task (a `HUMAN` row beside the attempts' rows). */
export function actionRow(
  request: HumanActionRequest,
  actor: Actor,
  task: { id: string; planLoop: number; maxPlanLoops?: number },
  now: Date,
): WorkLogRow {
  return {
    kind: 'HUMAN',
    time: now,
    task: task.id,
    artifact: planFileName(task.planLoop),
    planLoop: task.planLoop,
    ...(task.maxPlanLoops ? { maxPlanLoops: task.maxPlanLoops } : {}),
    role: 'human',
    attempt: '-',
    agentModel: `${actor.by ?? 'someone'} via ${actor.via}`,
    result: `${request.action}${request.answer ? `: ${request.answer}` : ''}${request.note ? ` (${request.note})` : ''}`,
    locator: '-',
  };
}
